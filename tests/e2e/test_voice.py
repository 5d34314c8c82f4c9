"""Spoken recitation in the real window. ALSA's default capture device reads
a raw file (ALSA_CONFIG_PATH), so a dev clip from ../shared/recite-audio-dev
is the microphone: a clip of 静夜思 with line 2 left out is heard, transcribed
by whisper and marked as an omission on line 2; a retry with a correct clip
passes; the result shows the next review the core scheduled (and the
schedule has it); the parent's report lists both attempts, the first not
passed and the second passed. Screenshots of each step go to test-artifacts/."""
import datetime
import zoneinfo

import pytest

from conftest import REPO
from ui import click, css, due_within, file_mic_env, open_profile, set_up_family, shot, tid, to_raw, unlock_parent, visible, wait

CLIPS = REPO.parent / "shared" / "recite-audio-dev"
VOICE_WAIT = 240  # whisper on 2 busy cores can take a while


def app_env(data_dir):
    mic = data_dir / "mic.raw"
    for name in ("静夜思-4", "静夜思-1"):
        if not (CLIPS / f"{name}.wav").exists():
            pytest.fail(f"dev clip {name}.wav missing from {CLIPS}")
        to_raw(CLIPS / f"{name}.wav", data_dir / f"{name}.raw")
    mic.symlink_to(data_dir / "静夜思-4.raw")
    return file_mic_env(data_dir, mic)


def recite(drv):
    click(drv, tid("practice-mode-voice"))
    click(drv, tid("record-button"))
    return visible(drv, tid("result-screen"), VOICE_WAIT)


def test_spoken_practice_omission_then_pass(app, data_dir):
    drv = app
    set_up_family(drv, parent="奶奶", pin="8642", child="小兰")
    open_profile(drv, "child", "小兰")
    click(drv, css('[data-testid="material-card"][data-title="静夜思"]'))
    visible(drv, tid("practice-screen"))
    shot(drv, "voice-00-open")

    recite(drv)
    assert visible(drv, tid("result-passed")).get_attribute("data-passed") == "false"
    marks = drv.find_elements(*css('[data-testid="error-mark"][data-type="omission"]'))
    assert [m.get_attribute("data-line") for m in marks] == ["2"]
    shot(drv, "voice-01-omission")

    # The child recites the whole poem the second time.
    mic = data_dir / "mic.raw"
    mic.unlink()
    mic.symlink_to(data_dir / "静夜思-1.raw")
    click(drv, tid("retry-button"))
    recite(drv)
    assert visible(drv, tid("result-passed")).get_attribute("data-passed") == "true"
    # The review the core scheduled is shown in the window, on a later day.
    next_review = visible(drv, tid("next-review"))
    review_day = datetime.date.fromisoformat(next_review.get_attribute("data-date"))
    today = datetime.datetime.now(zoneinfo.ZoneInfo("Asia/Shanghai")).date()
    assert review_day > today, f"next review {review_day} is not after {today}"
    assert review_day.isoformat() in next_review.text
    shot(drv, "voice-02-passed")
    assert "静夜思" in due_within(data_dir, "小兰")

    click(drv, tid("done-button"))
    # Back in the library (its header replaced the practice's) before going back again.
    visible(drv, tid("material-card"))
    click(drv, tid("back-button"))
    unlock_parent(drv, "奶奶", "8642")
    click(drv, tid("tab-reports"))
    click(drv, tid("report-kind-daily"))
    assert visible(drv, tid("report-date")).get_attribute("value") == today.isoformat()
    wait(drv, lambda d: d.find_element(*tid("report-attempts")).text.strip() == "2")
    # Both attempts, one by one: the omission first, then the pass.
    wait(drv, lambda d: len(d.find_elements(*tid("report-attempt"))) == 2)
    rows = drv.find_elements(*tid("report-attempt"))
    assert [r.get_attribute("data-passed") for r in rows] == ["false", "true"]
    assert all("静夜思" in r.text for r in rows)
    shot(drv, "voice-03-report")
    # The list sits below the figures: scrolled to just under the sticky header, then shot.
    drv.execute_script(
        "const list = document.querySelector('[data-testid=\"report-attempt-list\"]');"
        "window.scrollTo(0, list.getBoundingClientRect().top + window.scrollY - 90);")
    wait(drv, lambda d: d.execute_script("return window.scrollY") > 0)
    shot(drv, "voice-04-report-attempts")
