"""The one entry in the real window: a child tells Deskmate "我要背静夜思"
on the home screen and the practice opens on that poem; "今天做什么" is
answered from today's plan (nothing due, no goals yet). Both are logged with a trace id."""
from ui import cli, fill, click, open_profile, set_up_family, shot, tid, visible, wait


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
    fill(drv, "say-input", "我要背静夜思")
    click(drv, tid("say-send"))
    screen = visible(drv, tid("practice-screen"))
    wait(drv, lambda d: "静夜思" in d.find_element(*tid("practice-screen")).text)
    assert screen.get_attribute("data-state") == "ready"
    shot(drv, "say-01-practice-opened")
    # Both requests were logged; replayed with today's rules they come out the same.
    assert "2 decisions replayed, 0 would change" in cli(data_dir, "trace", "replay")
