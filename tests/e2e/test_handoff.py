"""A chat request through the one entry in the real window: the child asks
the companion something on the home screen ("月亮上有兔子吗"), the chat opens
and the scripted model's answer streams in there. The parent's "what
happened" then shows that request with the companion's run and its model
call under it — the same spans `deskmate trace show` prints."""
import model_server
from ui import cli, click, configure_model, css, fill, open_profile, shot, tid, unlock_parent, visible, wait


def test_a_chat_request_is_answered_by_the_companion_under_its_trace(app, data_dir):
    drv = app
    server = model_server.start()
    try:
        configure_model(drv, server)
        click(drv, tid("lock-button"))
        open_profile(drv, "child", "小红")
        visible(drv, tid("child-home"))
        fill(drv, "say-input", "月亮上有兔子吗")
        click(drv, tid("say-send"))
        visible(drv, tid("chat-screen"))
        # The child's words are the chat's first message; the answer streams in.
        wait(drv, lambda d: "pong" in d.find_element(*tid("assistant-message")).text)
        assert "月亮上有兔子吗" in drv.find_element(*tid("chat-screen")).text
        # The router's own call (the offline rules are not sure of a question)
        # asks for `classify_intent`; the companion's carries its tools.
        asked = [m for m in server.requests
                 if m.get("tools") and m["tools"][0]["function"]["name"] != "classify_intent"]
        assert len(asked) == 1, server.requests
        assert "月亮上有兔子吗" in str(asked[0]["messages"][-1]["content"])
        shot(drv, "handoff-01-answered")
    finally:
        server.shutdown()
        server.server_close()

    click(drv, tid("back-button"))
    visible(drv, tid("child-home"))
    click(drv, tid("back-button"))
    unlock_parent(drv, "爸爸", "1357")
    click(drv, tid("tab-activity"))
    visible(drv, css('[data-testid="trace-item"]'))
    wait(drv, lambda d: any("月亮上有兔子吗" in i.text for i in d.find_elements(*tid("trace-item"))))
    item = next(i for i in drv.find_elements(*tid("trace-item")) if "月亮上有兔子吗" in i.text)
    trace_id = item.get_attribute("data-trace-id")
    # The companion's run was hung under the request once it answered.
    shown = cli(data_dir, "trace", "show", "--json", trace_id)
    names = [s["name"] for s in shown["spans"]]
    assert "companion.run" in names and "model.call" in names, names
    item.find_element(*tid("trace-open")).click()
    timeline = visible(drv, tid("trace-timeline"))
    wait(drv, lambda d: len(timeline.find_elements(*tid("trace-span"))) == len(names))
    shown_names = [s.find_element("css selector", "strong").text for s in timeline.find_elements(*tid("trace-span"))]
    assert sorted(shown_names) == sorted(names)
    shot(drv, "handoff-02-timeline")
