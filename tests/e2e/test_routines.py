"""The routine editor in the real window (issue 21): a parent builds start →
study tool → end with the editor's buttons and side panel (drag and drop is
unreliable over WebDriver; the panel's selects connect nodes as the canvas's
handles do), sees the core's validator explain on the tool node that it
leads nowhere, cannot save until it is connected, and saves it for the
child. On the child's plan it runs from there and is ticked done. Back in
the editor the parent runs it on a test input and sees every node done,
with the tool's output on its node (the runs checked with the CLI too)."""
from selenium.webdriver.support.ui import Select

from ui import choose, cli, click, css, fill, open_profile, set_up_family, shot, tid, unlock_parent, visible, wait


def state(drv, node):
    return drv.find_element(*tid(f"rnode-{node}")).get_attribute("data-state")


def show_canvas(drv, name, node="rnode-tool-1"):
    """A screenshot of the canvas around `node`; the page is scrolled back after it."""
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", drv.find_element(*tid(node)))
    shot(drv, name)
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", drv.find_element(*tid("routine-name")))


def test_build_save_and_run_a_three_node_routine(app, data_dir):
    drv = app
    set_up_family(drv)
    unlock_parent(drv)
    click(drv, tid("tab-routines"))
    visible(drv, tid("routines-empty"))
    click(drv, tid("routine-new"))
    fill(drv, "routine-name", "evening-check")

    # start → tool (due reviews), the start connected from the side panel.
    click(drv, tid("routine-add-tool"))
    wait(drv, lambda d: d.find_element(*tid("routine-panel-id")).text == "tool-1")
    wait(drv, lambda d: len(Select(d.find_element(*tid("rpanel-tool"))).options) > 2)
    choose(drv, "rpanel-tool", "due_reviews")
    click(drv, tid("routine-panel-close"))
    click(drv, tid("routine-select-start"))
    choose(drv, "rpanel-next", "tool-1")

    # Not yet connected to the end: explained on the tool node, and Save refuses.
    problem = visible(drv, tid("rnode-problem-tool-1"))
    wait(drv, lambda d: "还没连到下一步" in d.find_element(*tid("rnode-problem-tool-1")).text)
    assert problem.get_attribute("data-code") == "routine.missing_next"
    assert drv.find_element(*tid("routine-check")).get_attribute("data-state") == "problems"
    click(drv, tid("routine-save"))
    assert "还不能保存" in visible(drv, tid("routine-refused")).text
    show_canvas(drv, "routines-01-explained")
    assert cli(data_dir, "workflows", "list", "--json") == []

    click(drv, tid("routine-panel-close"))
    click(drv, tid("routine-select-tool-1"))
    choose(drv, "rpanel-next", "end")
    wait(drv, lambda d: d.find_element(*tid("routine-check")).get_attribute("data-state") == "valid")
    wait(drv, lambda d: not d.find_elements(*tid("rnode-problem-tool-1")))
    # For the child: it goes on the child's plan.
    click(drv, css('[data-testid^="routine-child-"]'))
    click(drv, tid("routine-save"))
    assert "evening-check" in visible(drv, tid("routine-saved")).text
    [saved] = cli(data_dir, "workflows", "list", "--json")
    assert [(n["id"], n.get("next")) for n in saved["nodes"]] == [("start", "tool-1"), ("end", None), ("tool-1", "end")]
    assert all("position" in n for n in saved["nodes"])
    assert len(saved["children"]) == 1

    # The child opens it from the plan: it runs, step by step, and is ticked done.
    click(drv, tid("lock-button"))
    open_profile(drv, "child", "小明")
    task = visible(drv, css('[data-testid="plan-task"][data-kind="routine"]'))
    assert "evening-check" in task.text and task.get_attribute("data-done") == "false"
    task.click()
    visible(drv, tid("routine-done"))
    step = visible(drv, tid("routine-step"))
    assert step.get_attribute("data-node") == "tool-1" and step.get_attribute("data-state") == "done"
    shot(drv, "routines-02-child")
    click(drv, tid("back-button"))
    wait(drv, lambda d: d.find_element(*css('[data-testid="plan-task"][data-kind="routine"]')).get_attribute("data-done") == "true")

    # The parent runs it in the editor on a test input: every node lights up done.
    click(drv, tid("back-button"))
    unlock_parent(drv)
    click(drv, tid("tab-routines"))
    click(drv, css('[data-testid="routine-item"][data-name="evening-check"]'))
    fill(drv, "routine-run-input", "今晚复习")
    click(drv, tid("routine-run"))
    wait(drv, lambda d: d.find_element(*tid("routine-run-status")).get_attribute("data-status") == "finished")
    wait(drv, lambda d: all(state(d, n) == "done" for n in ("start", "tool-1", "end")))
    # The tool's output (its JSON: nothing is due yet) on its node and in the panel.
    assert visible(drv, tid("rnode-output-tool-1")).get_attribute("textContent").strip() == "[]"
    pick = drv.find_element(*tid("routine-select-tool-1"))
    drv.execute_script("arguments[0].scrollIntoView({block: 'center'})", pick)
    pick.click()
    assert visible(drv, tid("rpanel-output")).get_attribute("textContent").strip() == "[]"
    show_canvas(drv, "routines-03-ran")
    runs = cli(data_dir, "workflows", "show", "evening-check", "--json")["runs"]
    assert [(r["status"], r["input"]) for r in runs] == [("finished", "今晚复习"), ("finished", "")]
    assert [s["node"] for s in runs[0]["steps"]] == ["start", "tool-1", "end"]

    # The built-in evening review as an example: laid out by depth, valid, not saved.
    choose(drv, "routine-example", "evening-review")
    click(drv, tid("routine-from-example"))
    wait(drv, lambda d: d.find_element(*tid("routine-name")).get_attribute("value") == "evening-review")
    wait(drv, lambda d: d.find_element(*tid("routine-check")).get_attribute("data-state") == "valid")
    assert drv.find_elements(*css('[data-testid^="rnode-"][data-problems="0"]'))
    # React Flow draws the edges (and their labels) only once it has measured
    # the nodes, a frame or more after them: wait for them. (CI once read the
    # labels before they were drawn and found none.)
    def labels(d):
        return {e.get_attribute("textContent") for e in d.find_elements(*css(".react-flow__edge-text"))}
    try:
        wait(drv, lambda d: {"静夜思", "其他情况"} <= labels(d))
    except Exception as e:
        raise AssertionError(f"edge labels: {sorted(labels(drv))}") from e
    x = lambda node: drv.find_element(*tid(f"rnode-{node}")).rect["x"]  # noqa: E731
    assert x("start") < x("due") < x("plan") < x("choose") < x("recite") < x("note") < x("end")
    show_canvas(drv, "routines-04-example", "rnode-choose")
    assert [r["name"] for r in cli(data_dir, "workflows", "list", "--json")] == ["evening-check"]
