"""The one entry in the real window: a child tells Deskmate "我要背静夜思"
on the home screen and the practice opens on that poem; "今天做什么" is
answered from today's plan (nothing due, no goals yet); a title said alone
("春晓") is asked about first, and the screen's 好的 button (the entry's
`screen:yes`) opens it. All are logged with a trace id."""
from ui import cli, fill, click, open_profile, set_up_family, shot, tid, visible, wait


def page_text(drv, testid):
    """The element's text read in one script (it re-renders as answers arrive)."""
    return drv.execute_script(
        f"const e = document.querySelector('[data-testid={testid}]'); return e ? e.textContent : ''")


def test_a_child_says_what_to_do_and_the_right_scene_opens(app, data_dir):
    drv = app
    set_up_family(drv, parent="妈妈", pin="2468", child="小明")
    open_profile(drv, "child", "小明")
    visible(drv, tid("child-home"))
    fill(drv, "say-input", "今天做什么")
    click(drv, tid("say-send"))
    reply = visible(drv, tid("say-reply"))
    assert reply.get_attribute("data-scene") == "plan"
    assert "今天没有要做的任务" in reply.text
    # A title alone is asked about first; the screen's yes button goes.
    fill(drv, "say-input", "春晓")
    click(drv, tid("say-send"))
    wait(drv, lambda d: "要去背《春晓》吗" in page_text(d, "say-reply"))
    click(drv, tid("say-yes"))
    wait(drv, lambda d: "春晓" in page_text(d, "practice-screen"))
    click(drv, tid("back-button"))
    visible(drv, tid("child-home"))
    fill(drv, "say-input", "我要背静夜思")
    click(drv, tid("say-send"))
    screen = visible(drv, tid("practice-screen"))
    wait(drv, lambda d: "静夜思" in page_text(d, "practice-screen"))
    assert screen.get_attribute("data-state") == "ready"
    shot(drv, "say-01-practice-opened")
    # Every request was logged (the button as one); replayed with today's rules they come out the same.
    replayed = cli(data_dir, "trace", "replay")
    assert "4 decisions replayed, 0 would change" in replayed, replayed
