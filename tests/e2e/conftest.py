"""Fixtures for end-to-end tests of the real Deskmate window.

tauri-driver (on a free loopback port) starts the real app binary through
WebKitWebDriver; the app gets a fresh data directory per test module, so each
test begins at first-run setup. Screenshots go to test-artifacts/.
"""
import os
import pathlib
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.request

import pytest
from selenium import webdriver
from selenium.webdriver.common.options import ArgOptions

REPO = pathlib.Path(__file__).resolve().parents[2]
APP = REPO / "target" / "debug" / "deskmate-app"
ARTIFACTS = REPO / "test-artifacts"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_http(url: str, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=1)
            return
        except Exception:
            time.sleep(0.2)
    raise RuntimeError(f"tauri-driver did not answer at {url}")


class WryOptions(ArgOptions):
    """Capabilities for tauri-driver: browserName wry plus tauri:options."""

    def __init__(self, application: pathlib.Path):
        super().__init__()
        self.set_capability("browserName", "wry")
        self.set_capability("tauri:options", {"application": str(application)})

    def to_capabilities(self):
        return self._caps

    @property
    def default_capabilities(self):
        return {}


@pytest.fixture(scope="module")
def data_dir():
    d = tempfile.mkdtemp(prefix="deskmate-e2e-")
    yield pathlib.Path(d)
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture(scope="module")
def lamp(data_dir):
    """The lamp simulator on a pseudo-terminal, as `deskmate lamp simulate` runs it."""
    link = data_dir / "lamp0"
    proc = subprocess.Popen(
        [str(REPO / "target/debug/deskmate"), "--data-dir", str(data_dir), "lamp", "simulate", "--link", str(link)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    first = proc.stdout.readline().strip()
    if not first:
        proc.kill()
        pytest.fail("the lamp simulator printed no port")
    yield link
    proc.terminate()
    proc.wait(10)


@pytest.fixture(scope="module")
def app(request, data_dir, lamp):
    if not APP.exists():
        pytest.fail(f"{APP} is missing: build it with `cargo build -p deskmate-shell` (scripts/test.sh does)")
    driver_bin = shutil.which("tauri-driver") or str(pathlib.Path.home() / ".cargo/bin/tauri-driver")
    port, native_port = _free_port(), _free_port()
    # TZ: the window shows dates in the children's default time zone (Asia/Shanghai),
    # so a report for "today" is the same day the core counts attempts in.
    env = dict(os.environ, DESKMATE_DATA_DIR=str(data_dir), TZ="Asia/Shanghai", DESKMATE_LAMP_PORT=str(lamp))
    # A test module may add to the app's environment (e.g. an ALSA microphone).
    env.update(getattr(request.module, "app_env", lambda _dir: {})(data_dir))
    ARTIFACTS.mkdir(exist_ok=True)
    log = open(ARTIFACTS / "tauri-driver.log", "ab")
    proc = subprocess.Popen(
        [driver_bin, "--port", str(port), "--native-port", str(native_port)],
        env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        _wait_http(f"http://127.0.0.1:{port}/status", 30)
        drv = webdriver.Remote(command_executor=f"http://127.0.0.1:{port}", options=WryOptions(APP))
        drv.implicitly_wait(0)
        yield drv
        drv.quit()
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed window test leaves a screenshot of what the window showed."""
    outcome = yield
    report = outcome.get_result()
    drv = item.funcargs.get("app") if hasattr(item, "funcargs") else None
    if report.when == "call" and report.failed and drv is not None:
        try:
            drv.save_screenshot(str(ARTIFACTS / f"FAILED-{item.name}.png"))
        except Exception:
            pass
