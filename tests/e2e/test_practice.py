"""Recitation practice in the real window, typed mode (默写): a recitation of
静夜思 with a line left out is marked on the right line, a retry passes, a
review is scheduled, and the parent's report counts both attempts."""
import datetime
import zoneinfo

from ui import click, css, due_within, fill, open_profile, set_up_family, shot, tid, unlock_parent, visible, wait

OMITTED = "床前明月光，举头望明月，低头思故乡。"
CORRECT = "床前明月光，疑是地上霜。举头望明月，低头思故乡。"


def submit_typed(drv, text):
    click(drv, tid("practice-mode-text"))
    fill(drv, "text-answer", text)
    click(drv, tid("text-submit"))
    return visible(drv, tid("result-screen"))


def test_typed_practice_retry_review_and_report(app, data_dir):
    drv = app
    set_up_family(drv)
    open_profile(drv, "child", "小明")
    click(drv, css('[data-testid="material-card"][data-title="静夜思"]'))
    visible(drv, tid("practice-screen"))
    shot(drv, "practice-01-open")

    # A line left out: not passed, an omission marked on line 2.
    submit_typed(drv, OMITTED)
    assert visible(drv, tid("result-passed")).get_attribute("data-passed") == "false"
    marks = drv.find_elements(*css('[data-testid="error-mark"][data-type="omission"]'))
    assert [m.get_attribute("data-line") for m in marks] == ["2"], [m.get_attribute("outerHTML") for m in marks]
    assert visible(drv, tid("feedback-text")).text.strip()
    assert int(visible(drv, tid("accuracy")).text.strip().rstrip("%")) == 75
    shot(drv, "practice-02-omission")

    # Retry with the whole poem: passed on the second attempt.
    click(drv, tid("retry-button"))
    submit_typed(drv, CORRECT)
    assert visible(drv, tid("result-passed")).get_attribute("data-passed") == "true"
    assert int(visible(drv, tid("accuracy")).text.strip().rstrip("%")) == 100
    shot(drv, "practice-03-passed")

    # The lamp (the simulator here) celebrates the pass, and its panel shows it.
    click(drv, tid("lamp-dock-toggle"))
    wait(drv, lambda d: d.find_element(*tid("lamp-face")).get_attribute("data-expression") == "happy")
    shot(drv, "practice-03b-lamp")

    # The first pass put 静夜思 on the review schedule.
    assert "静夜思" in due_within(data_dir, "小明")

    # The parent's daily report counts both attempts.
    click(drv, tid("done-button"))
    visible(drv, tid("child-home"))
    click(drv, tid("back-button"))
    unlock_parent(drv)
    click(drv, tid("tab-reports"))
    visible(drv, tid("report-screen"))
    click(drv, tid("report-kind-daily"))
    today = datetime.datetime.now(zoneinfo.ZoneInfo("Asia/Shanghai")).date().isoformat()
    assert visible(drv, tid("report-date")).get_attribute("value") == today
    wait(drv, lambda d: d.find_element(*tid("report-attempts")).text.strip() == "2")
    shot(drv, "practice-04-report")
