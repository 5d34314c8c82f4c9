"""Small WebDriver vocabulary for the Deskmate window tests."""
import datetime
import json
import os
import subprocess
import time
import wave

from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as EC
from selenium.webdriver.support.ui import Select, WebDriverWait

from conftest import ARTIFACTS, REPO

WAIT = 30


def tid(value):
    return (By.CSS_SELECTOR, f'[data-testid="{value}"]')


def css(selector):
    return (By.CSS_SELECTOR, selector)


def shot(drv, name):
    drv.save_screenshot(str(ARTIFACTS / f"e2e-{name}.png"))


def wait(drv, cond, timeout=WAIT):
    """Polls `cond` until it holds. WebKitWebDriver can report an element
    as stale when the page removes it while a query is being answered (CI
    saw it on `find_elements` as the retake's listening mark went away):
    that poll does not count and the next one looks again, until `timeout`."""
    return WebDriverWait(drv, timeout, ignored_exceptions=(StaleElementReferenceException,)).until(cond)


def visible(drv, locator, timeout=WAIT):
    return wait(drv, EC.visibility_of_element_located(locator), timeout)


def click(drv, locator):
    wait(drv, EC.element_to_be_clickable(locator)).click()


def fill(drv, testid, text):
    """Replaces a field's text. Select-all and delete go through the page's
    own input handling (a plain clear() does not reach React's state), and a
    form that loads its saved values late could overwrite what was typed, so
    the field is checked and typed again until it holds `text`."""
    el = wait(drv, EC.element_to_be_clickable(tid(testid)))
    for _ in range(5):
        el.send_keys(Keys.CONTROL, "a")
        el.send_keys(Keys.DELETE)
        el.send_keys(text)
        time.sleep(0.2)
        if el.get_attribute("value") == text:
            return el
    raise AssertionError(f"{testid} holds {el.get_attribute('value')!r}, not {text!r}")


def choose(drv, testid, value):
    el = wait(drv, EC.presence_of_element_located(tid(testid)))
    if el.tag_name.lower() == "select":
        Select(el).select_by_value(value)
    else:
        el.clear()
        el.send_keys(value)


def open_profile(drv, kind, name):
    click(drv, css(f'[data-testid="profile-card"][data-kind="{kind}"][data-name="{name}"]'))


def set_up_family(drv, parent="妈妈", pin="2468", child="小明", grade="1"):
    fill(drv, "setup-parent-name", parent)
    fill(drv, "setup-parent-pin", pin)
    fill(drv, "setup-parent-pin2", pin)
    fill(drv, "setup-child-name", child)
    choose(drv, "setup-child-grade", grade)
    click(drv, tid("setup-submit"))


def unlock_parent(drv, name="妈妈", pin="2468"):
    open_profile(drv, "parent", name)
    fill(drv, "pin-input", pin)
    click(drv, tid("pin-submit"))
    visible(drv, tid("parent-home"))


def cli(data_dir, *args):
    """The deskmate CLI on the window's data directory; JSON output parsed."""
    out = subprocess.run([str(REPO / "target/debug/deskmate"), "--data-dir", str(data_dir), *args],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out) if out.strip().startswith(("[", "{")) else out


def due_within(data_dir, child_name, days=60):
    """What the review schedule has due for a child within `days` (CLI output)."""
    child = next(p for p in cli(data_dir, "profiles", "list", "--json") if p["name"] == child_name)
    later = (datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(days=days)).isoformat()
    return str(cli(data_dir, "reviews", "due", "--profile", child["id"], "--at", later))


def configure_model(drv, server, key="sk-e2e-secret-key"):
    """A parent (set up first) makes the scripted model server the chat model
    in Settings; with `key=None` no key is saved (the server needs none, and
    the keyring is left out of the test)."""
    set_up_family(drv, parent="爸爸", pin="1357", child="小红")
    unlock_parent(drv, "爸爸", "1357")
    click(drv, tid("tab-settings"))
    Select(visible(drv, tid("llm-provider"))).select_by_value("custom")
    fill(drv, "llm-model", "scripted")
    fill(drv, "llm-base-url", f"http://127.0.0.1:{server.server_port}/v1")
    if key is None:
        click(drv, tid("llm-save"))
        wait(drv, lambda d: "banner-ok" in (d.find_element(*tid("llm-message")).get_attribute("class") or ""))
    else:
        fill(drv, "llm-key", key)
        click(drv, tid("llm-save"))
        visible(drv, tid("llm-key-saved"))
    agree_to_model_notice(drv)


def agree_to_model_notice(drv):
    """The parent reads what is sent where (the saved address is named) and
    agrees: until then the companion uses no model."""
    notice = visible(drv, tid("llm-notice-text"))
    assert "/v1" in notice.text, notice.text
    assert not drv.find_element(*tid("llm-notice-agree")).is_enabled()
    click(drv, tid("llm-notice-check"))
    click(drv, tid("llm-notice-agree"))
    visible(drv, tid("llm-notice-agreed"))


def to_raw(wav_path, raw_path):
    """A dev clip as the ALSA file microphone reads it: 16 kHz mono S16_LE
    samples, then 3 s of silence so the voice detector hears the end."""
    with wave.open(str(wav_path)) as w:
        assert (w.getframerate(), w.getnchannels(), w.getsampwidth()) == (16000, 1, 2)
        frames = w.readframes(w.getnframes())
    raw_path.write_bytes(frames + b"\0\0" * 16000 * 3)


def file_mic_env(data_dir, mic):
    """The app's environment for ALSA's default capture device reading `mic`
    (the same configuration the Rust tests use: one template), with the
    offline speech models."""
    conf = data_dir / "asound.conf"
    template = (REPO / "crates/testkit/alsa-file-mic.conf").read_text()
    conf.write_text(template.replace("@INFILE@", str(mic)))
    return {"ALSA_CONFIG_PATH": str(conf), "DESKMATE_MODELS_DIR": os.environ.get("DESKMATE_MODELS_DIR", str(REPO / "models"))}
