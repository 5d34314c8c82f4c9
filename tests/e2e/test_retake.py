"""A re-asked line said again alone, in the real window (issue 13 point 5).
ALSA's default capture device reads a raw file, so dev clips are the
microphone: 静夜思 with 月 said as 烟 in line 1 (../shared/recite-audio-dev/
静夜思-8.wav), which whisper hears unclearly, so the verdict re-asks line 1
("第一句…没听清，再读一遍好吗？"); "只读这一句" records line 1 alone — the
first line of the clean clip 静夜思-1.wav, cut at its first pause — and the
same attempt's verdict is updated: nothing re-asked, 100 %, and the parent's
report still has one attempt."""
import datetime
import wave
import zoneinfo

import pytest

from conftest import REPO
from ui import click, css, file_mic_env, open_profile, set_up_family, shot, tid, to_raw, unlock_parent, visible, wait

CLIPS = REPO.parent / "shared" / "recite-audio-dev"
VOICE_WAIT = 90  # the clip plays at speaking pace, then whisper on 2 busy cores


def first_line_raw(wav_path, raw_path):
    """The first line of a clip of a whole poem — up to its first pause
    (150 ms below 1 % of full scale after speech; the dev clips pause 0.2 s
    at each comma) — then 3 s of silence, as raw samples."""
    with wave.open(str(wav_path)) as w:
        frames = w.readframes(w.getnframes())
    samples = memoryview(frames).cast("h")
    window, quiet, spoke = 160, 0, False
    for start in range(0, len(samples) - window, window):
        loud = max(abs(x) for x in samples[start:start + window]) >= 328
        spoke = spoke or loud
        quiet = 0 if loud or not spoke else quiet + 1
        if quiet == 15:
            raw_path.write_bytes(frames[:(start + window) * 2] + b"\0\0" * 16000 * 3)
            return
    pytest.fail(f"no pause after the first line of {wav_path.name}")


def app_env(data_dir):
    for name in ("静夜思-8", "静夜思-1"):
        if not (CLIPS / f"{name}.wav").exists():
            pytest.fail(f"dev clip {name}.wav missing from {CLIPS}")
    to_raw(CLIPS / "静夜思-8.wav", data_dir / "re-asked.raw")
    first_line_raw(CLIPS / "静夜思-1.wav", data_dir / "line-1.raw")
    mic = data_dir / "mic.raw"
    mic.symlink_to(data_dir / "re-asked.raw")
    return file_mic_env(data_dir, mic)


def test_a_re_asked_line_is_said_again_alone_and_the_verdict_updated(app, data_dir):
    drv = app
    set_up_family(drv, parent="外婆", pin="3579", child="小雨")
    open_profile(drv, "child", "小雨")
    click(drv, css('[data-testid="material-card"][data-title="静夜思"]'))
    visible(drv, tid("practice-screen"))
    click(drv, tid("practice-mode-voice"))
    click(drv, tid("record-button"))
    visible(drv, tid("result-screen"), VOICE_WAIT)
    ask = visible(drv, tid("retake-ask-1"))
    assert "床前明月光" in ask.text
    assert drv.find_element(*tid("accuracy")).text == "95"
    shot(drv, "retake-01-re-asked")

    # The child says line 1 alone, right this time.
    mic = data_dir / "mic.raw"
    mic.unlink()
    mic.symlink_to(data_dir / "line-1.raw")
    click(drv, tid("retake-line-1"))
    visible(drv, tid("retake-listening"))
    wait(drv, lambda d: not d.find_elements(*tid("retake-listening")), VOICE_WAIT)
    assert not drv.find_elements(*tid("retake-ask-1"))
    assert drv.find_element(*tid("accuracy")).text == "100"
    assert drv.find_element(*tid("result-passed")).get_attribute("data-passed") == "true"
    shot(drv, "retake-02-merged")

    # Still one attempt: the parent's report has it, with the merged accuracy.
    click(drv, tid("done-button"))
    visible(drv, tid("material-card"))
    click(drv, tid("back-button"))
    unlock_parent(drv, "外婆", "3579")
    click(drv, tid("tab-reports"))
    click(drv, tid("report-kind-daily"))
    today = datetime.datetime.now(zoneinfo.ZoneInfo("Asia/Shanghai")).date()
    assert visible(drv, tid("report-date")).get_attribute("value") == today.isoformat()
    wait(drv, lambda d: d.find_element(*tid("report-attempts")).text.strip() == "1")
