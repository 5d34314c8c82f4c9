"""The family's sync in the real window, against a real deskmate-server on a
throwaway PostgreSQL: the parent signs up in Settings and the window shows a
pairing code; a second device (the CLI on a data directory of its own, the
child's tablet) joins with it and its children arrive; the child's attempt
made there appears on the parent's report after a sync; and the window turns
sync off and on, stopping and starting its background loop."""
import json
import subprocess
import tempfile

import pytest

import sync_server
from conftest import REPO
from ui import cli, click, css, set_up_family, shot, tid, unlock_parent, visible, wait


@pytest.fixture(scope="module")
def server():
    s = sync_server.start()
    yield s
    s.stop()


def tablet(data_dir, *args):
    """The deskmate CLI on the tablet's data directory (JSON parsed)."""
    out = subprocess.run([str(REPO / "target/debug/deskmate"), "--data-dir", str(data_dir), *args],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out) if out.strip().startswith(("[", "{")) else out


def state(drv):
    el = visible(drv, tid("sync-state"))
    return el.get_attribute("data-enabled"), el.get_attribute("data-running")


def tab(drv, name):
    """Opens a tab of the parent area (scrolled to the top: the header must not cover it)."""
    drv.execute_script("window.scrollTo(0, 0)")
    click(drv, tid(f"tab-{name}"))


def sync_now(drv):
    """Clicks "sync now" and waits until the round is over."""
    click(drv, tid("sync-now"))
    wait(drv, lambda d: d.find_element(*tid("sync-signed-in")).get_attribute("data-busy") == "")


def test_a_tablet_joins_and_its_attempt_reaches_the_parents_report(app, data_dir, server):
    drv = app
    set_up_family(drv, parent="妈妈", pin="2468", child="小明")
    visible(drv, css('[data-testid="profile-card"][data-name="小明"]'))
    unlock_parent(drv)
    tab(drv, "settings")

    # Sign up: the family's account on the server; this device is signed in.
    visible(drv, tid("sync-account-form"))
    for field, text in [("sync-server", server.url), ("sync-email", "mama@example.com"),
                        ("sync-password", "correct horse")]:
        el = visible(drv, tid(field))
        el.send_keys(text)
    click(drv, tid("sync-submit"))
    visible(drv, tid("sync-signed-in"))
    wait(drv, lambda d: "mama@example.com" in d.find_element(*tid("sync-account")).text)
    assert state(drv)[0] == "false", "sync stays off until the parent turns it on"
    assert not drv.find_elements(*tid("sync-indicator"))

    # Sync on: the background loop runs and the header shows the dot.
    click(drv, tid("sync-enabled"))
    wait(drv, lambda d: state(d) == ("true", "true"))
    # Waiting or synced, not offline: the rounds while sync was off tried nothing.
    assert visible(drv, tid("sync-indicator")).get_attribute("data-state") in ("pending", "synced")
    kinds = [k.get_attribute("data-kind") for k in drv.find_elements(*tid("sync-kind"))]
    assert {"attempt", "profile", "report"} <= set(kinds)

    # A pairing code for the child's tablet.
    click(drv, tid("sync-pair"))
    code = visible(drv, tid("sync-pair-code")).text.strip()
    assert len(code) == 8 and code.isdigit(), code
    shot(drv, "sync-01-pairing-code")

    with tempfile.TemporaryDirectory(prefix="deskmate-e2e-tablet-") as tab_dir:
        joined = tablet(tab_dir, "devices", "pair", "--server", server.url, "--code", code, "--json")
        assert joined["family_id"]
        tablet(tab_dir, "sync", "on")
        # The family's children come over with the first sync (the window's
        # loop sent them when sync turned on; a sync now makes sure).
        sync_now(drv)
        tablet(tab_dir, "sync", "now", "--json")
        names = {p["name"] for p in tablet(tab_dir, "profiles", "list", "--json")}
        assert "小明" in names, names
        # The window lists the tablet among the family's devices.
        tab(drv, "reports")
        tab(drv, "settings")
        wait(drv, lambda d: sorted(e.get_attribute("data-name") for e in d.find_elements(*tid("sync-device")))
             == ["desktop", "tablet"])

        # The child recites on the tablet; the tablet syncs.
        tablet(tab_dir, "recite", "attempt", "--profile", "小明", "--material", "静夜思",
               "--transcript", "床前明月光，疑是地上霜。举头望明月，低头思故乡。")
        tablet(tab_dir, "sync", "now", "--json")

    # The parent syncs now and the report counts the tablet's attempt.
    sync_now(drv)
    assert not drv.find_elements(*tid("sync-last-error"))
    assert visible(drv, tid("sync-indicator")).get_attribute("data-state") == "synced"
    tab(drv, "reports")
    visible(drv, tid("report-screen"))
    click(drv, tid("report-kind-daily"))
    wait(drv, lambda d: d.find_element(*tid("report-attempts")).text.strip() == "1")
    shot(drv, "sync-02-report")

    # Sync off: the loop stops (the window and `deskmate sync status` agree);
    # on again: it starts, and its first round sends what was queued.
    tab(drv, "settings")
    click(drv, tid("sync-enabled"))
    wait(drv, lambda d: state(d) == ("false", "false"))
    assert cli(data_dir, "sync", "status", "--json")["enabled"] is False
    wait(drv, lambda d: not d.find_elements(*tid("sync-indicator")))
    click(drv, tid("sync-enabled"))
    wait(drv, lambda d: state(d) == ("true", "true"))
    status = cli(data_dir, "sync", "status", "--json")
    assert status["enabled"] is True
    wait(drv, lambda _: cli(data_dir, "sync", "status", "--json")["pending"] == 0, timeout=20)
    assert cli(data_dir, "sync", "status", "--json")["background"]["round"] == "synced"
    shot(drv, "sync-03-on-again")
