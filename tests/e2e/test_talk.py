"""The talk button on the child's home, in the real window. ALSA's default
capture device reads a raw file, so a dev clip is the microphone: the child
presses the talk button and the microphone plays a child reciting 静夜思
(../shared/recite-audio-dev/静夜思-1.wav). The practice scene's microphone
hears it until the child falls silent, whisper transcribes it, and the one
entry recognises the poem by its lines and asks first; "好的" opens the
recite scene on 静夜思. (There is no dev clip of a child saying
"我要背静夜思", nor of the title read aloud; whisper base does not
understand espeak-ng's Mandarin, so none is made here.)"""
import pytest

from conftest import REPO
from ui import cli, click, file_mic_env, fill, open_profile, set_up_family, shot, tid, to_raw, visible, wait

CLIP = REPO.parent / "shared" / "recite-audio-dev" / "静夜思-1.wav"
TALK_WAIT = 60  # the clip plays at speaking pace (~7 s), then whisper on 2 busy cores


def app_env(data_dir):
    if not CLIP.exists():
        pytest.fail(f"dev clip {CLIP.name} missing from {CLIP.parent}")
    mic = data_dir / "mic.raw"
    to_raw(CLIP, mic)
    return file_mic_env(data_dir, mic)


def test_the_talk_button_hears_the_child_and_the_recitation_opens(app, data_dir):
    drv = app
    set_up_family(drv, parent="爷爷", pin="1470", child="小华")
    open_profile(drv, "child", "小华")
    visible(drv, tid("child-home"))
    click(drv, tid("talk-button"))
    # Listening, with a stop, while the clip plays.
    visible(drv, tid("talk-stop"))
    assert drv.find_element(*tid("talk")).get_attribute("data-state") == "listening"
    shot(drv, "talk-01-listening")
    reply = visible(drv, tid("say-reply"), TALK_WAIT)
    wait(drv, lambda d: d.find_element(*tid("talk")).get_attribute("data-state") == "answered")
    assert "床前明月光" in drv.find_element(*tid("talk-status")).text
    assert reply.get_attribute("data-scene") == "chat"
    assert "《静夜思》" in reply.text, reply.text
    shot(drv, "talk-02-asked")
    fill(drv, "say-input", "好的")
    click(drv, tid("say-send"))
    screen = visible(drv, tid("practice-screen"))
    wait(drv, lambda d: "静夜思" in d.find_element(*tid("practice-screen")).text)
    assert screen.get_attribute("data-state") == "ready"
    shot(drv, "talk-03-practice-opened")
    # Both were logged (what was heard, then 好的); replayed, nothing changes.
    assert "2 decisions replayed, 0 would change" in cli(data_dir, "trace", "replay")
