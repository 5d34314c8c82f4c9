"""The real app window, end to end: first-run setup, the parent PIN, and the
child's material library — against a fresh data directory."""
import json
import subprocess

from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions as EC

from conftest import REPO
from ui import choose, fill, open_profile, shot, tid, wait


def test_window_title(app):
    assert app.title == "同桌 Deskmate"


def test_setup_unlock_and_library(app, data_dir):
    drv = app
    # First run: create a parent with a PIN and a child.
    fill(drv, "setup-parent-name", "妈妈")
    fill(drv, "setup-parent-pin", "2468")
    fill(drv, "setup-parent-pin2", "2468")
    fill(drv, "setup-child-name", "小明")
    choose(drv, "setup-child-grade", "1")
    shot(drv, "01-setup")
    drv.find_element(*tid("setup-submit")).click()

    # Welcome: both profiles come from the core.
    open_profile(drv, "parent", "妈妈")
    # A wrong PIN is refused in plain words.
    fill(drv, "pin-input", "1111")
    drv.find_element(*tid("pin-submit")).click()
    err = wait(drv, EC.visibility_of_element_located(tid("pin-error")))
    assert "4" in err.text  # "4 tries left" in either language
    shot(drv, "02-wrong-pin")
    fill(drv, "pin-input", "2468")
    drv.find_element(*tid("pin-submit")).click()
    wait(drv, EC.visibility_of_element_located(tid("parent-home")))
    shot(drv, "03-parent-home")
    drv.find_element(*tid("lock-button")).click()

    # The child's library lists 静夜思 by 李白 and English texts.
    open_profile(drv, "child", "小明")
    wait(drv, EC.visibility_of_element_located(tid("child-home")))
    poem = wait(drv, EC.visibility_of_element_located(
        (By.CSS_SELECTOR, '[data-testid="material-card"][data-title="静夜思"]')))
    assert "李白" in poem.text
    shot(drv, "04-library")
    drv.find_element(*tid("filter-lang-en")).click()
    wait(drv, EC.visibility_of_element_located(
        (By.CSS_SELECTOR, '[data-testid="material-card"][data-lang="en"]')))
    cards = drv.find_elements(By.CSS_SELECTOR, '[data-testid="material-card"]')
    assert cards and all(c.get_attribute("data-lang") == "en" for c in cards)
    shot(drv, "05-library-en")

    # What the window did is what the core stored: the CLI sees the same profiles.
    out = subprocess.run(
        [str(REPO / "target/debug/deskmate"), "--data-dir", str(data_dir), "profiles", "list", "--json"],
        check=True, capture_output=True, text=True,
    ).stdout
    names = sorted(p["name"] for p in json.loads(out))
    assert names == ["妈妈", "小明"]


def test_tablet_landscape_layout(app):
    """At 1024×768 nothing scrolls sideways and every control is a ≥ 44 px touch target."""
    drv = app
    drv.set_window_size(1024, 768)
    wait(drv, EC.visibility_of_element_located(tid("child-home")))
    overflow = drv.execute_script(
        "return document.documentElement.scrollWidth - document.documentElement.clientWidth")
    assert overflow <= 0, f"page scrolls sideways by {overflow}px"
    small = drv.execute_script(
        """return [...document.querySelectorAll('button, input, select, [data-testid="material-card"]')]
             .filter(e => e.offsetParent !== null)
             .map(e => [e.getAttribute('data-testid') || e.textContent.trim().slice(0, 20), e.getBoundingClientRect().height])
             .filter(([, h]) => h < 44)""")
    assert small == [], f"touch targets under 44px: {small}"
    shot(drv, "06-tablet-landscape")
