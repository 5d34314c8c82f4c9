"""Subagents in the real window: the scripted lead hands two tasks to the
bundled math and poetry tutors at once; both stream side by side in their
own lanes inside the task cards, then fold into the cards when they are
done and the lead answers."""
import model_server
from ui import click, configure_model, css, fill, shot, tid, visible, wait


def test_two_subagents_work_side_by_side(app):
    drv = app
    server = model_server.start()
    try:
        configure_model(drv, server)
        click(drv, tid("open-chat"))
        visible(drv, tid("chat-screen"))
        fill(drv, "chat-input", "请两位老师帮忙：3盘苹果每盘4个一共几个？再讲讲举头望明月。")
        click(drv, tid("chat-send"))

        # Both subagents at work at once, each in its own lane, side by side.
        def both_writing(d):
            lanes = d.find_elements(*tid("subagent-lane"))
            writing = all(l.find_elements(*css(".subagent-text")) for l in lanes)
            return len(lanes) == 2 and writing and d.find_elements(*tid("lane-row"))
        wait(drv, both_writing)
        agents = sorted(l.get_attribute("data-agent") for l in drv.find_elements(*tid("subagent-lane")))
        assert agents == ["math-tutor", "poetry-tutor"], agents
        shot(drv, "chat-05-subagent-lanes")

        # Done: both answers came back to the lead, the lanes folded into their cards.
        wait(drv, lambda d: model_server.ANSWER in d.find_element(*tid("assistant-message")).text)
        cards = [c for c in drv.find_elements(*tid("tool-card")) if c.get_attribute("data-name") == "task"]
        assert [c.get_attribute("data-status") for c in cards] == ["completed", "completed"]
        assert not drv.find_elements(*tid("lane-row"))
        assert "12" in cards[0].text and "月亮" in cards[1].text
        shot(drv, "chat-06-subagents-done")
        # Each subagent was asked with its own instructions and only its task.
        subagent_asks = [r for r in server.requests
                         if r["messages"][0]["role"] == "system" and model_server.LEAD_PROMPT not in r["messages"][0]["content"]]
        assert len(subagent_asks) == 2
        assert all(len(r["messages"]) == 2 for r in subagent_asks)
    finally:
        server.shutdown()
        server.server_close()
