"""The parents' "what happened" in the real window: a request the child made
with `deskmate say` on the same data directory is listed in the parent area,
and opened it shows its timeline — the span tree with each step's time."""
from ui import cli, click, css, set_up_family, shot, tid, unlock_parent, visible, wait


def test_a_parent_opens_the_timeline_of_a_childs_request(app, data_dir):
    drv = app
    set_up_family(drv, parent="妈妈", pin="2468", child="小明")
    # The family is saved once the profiles are shown; then the CLI finds the child.
    visible(drv, css('[data-testid="profile-card"][data-name="小明"]'))
    said = cli(data_dir, "say", "--profile", "小明", "--json", "今天做什么")
    trace_id = said["trace_id"]
    unlock_parent(drv)
    click(drv, tid("tab-activity"))
    item = visible(drv, css(f'[data-testid="trace-item"][data-trace-id="{trace_id}"]'))
    assert "今天做什么" in item.text
    assert "plan" in item.find_element(*tid("trace-summary")).text
    item.find_element(*tid("trace-open")).click()
    timeline = visible(drv, tid("trace-timeline"))
    wait(drv, lambda d: len(timeline.find_elements(*tid("trace-span"))) >= 3)
    names = [s.find_element("css selector", "strong").text for s in timeline.find_elements(*tid("trace-span"))]
    # The same spans `deskmate trace show` prints, root first.
    shown = cli(data_dir, "trace", "show", "--json", trace_id)
    assert names[0] == "request"
    assert sorted(names) == sorted(s["name"] for s in shown["spans"])
    assert all(" ms" in s.text for s in timeline.find_elements(*tid("trace-span")))
    shot(drv, "what-happened-01-timeline")
