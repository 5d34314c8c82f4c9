"""Subagents in the real window: the scripted lead hands two tasks to the
bundled math and poetry tutors at once; both stream side by side in their
own lanes inside the task cards, then fold into the cards when they are
done and the lead answers. Reopened later, the thread still shows each
subagent's work under its task card."""
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

        # Leave the chat and reopen the thread: the lanes are read back from
        # the stored subagent runs, folded into their task cards.
        click(drv, tid("back-button"))
        click(drv, tid("open-chat"))
        visible(drv, tid("chat-screen"))
        # (textContent: WebKit's rendered text of the list item leaves out its clipped title.)
        wait(drv, lambda d: any(model_server.LANES_QUESTION in t.get_attribute("textContent")
                                for t in d.find_elements(*tid("thread-item"))))
        item = next(t for t in drv.find_elements(*tid("thread-item"))
                    if model_server.LANES_QUESTION in t.get_attribute("textContent"))
        drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", item)
        item.click()
        wait(drv, lambda d: len([c for c in d.find_elements(*tid("tool-card"))
                                 if c.get_attribute("data-name") == "task"]) == 2)
        assert not drv.find_elements(*tid("subagent-lane")), "folded until opened"
        cards = [c for c in drv.find_elements(*tid("tool-card")) if c.get_attribute("data-name") == "task"]
        for card, agent, answer in zip(cards, ["math-tutor", "poetry-tutor"], [model_server.MATH_ANSWER, model_server.POEM_ANSWER]):
            head = card.find_element(*css(".tool-card-head"))
            drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", head)
            head.click()
            lane = wait(drv, lambda d, card=card: card.find_element(*tid("subagent-lane")))
            assert lane.get_attribute("data-agent") == agent
            assert lane.get_attribute("data-done") == "true"
            assert answer in lane.find_element(*css(".subagent-text")).get_attribute("textContent")
        shot(drv, "chat-06b-subagents-reopened")
    finally:
        server.shutdown()
        server.server_close()
