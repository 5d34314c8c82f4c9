"""The parent's Usage & limits tab and a child's export and delete in the
real window (issue 20), on the real shell commands: a child's chat with the
scripted model, whose reply the safety check replaces, shows in the usage
table and as a notice that opens the model's original with the
conversation; the limits form names a bad value in place and saves quiet
hours that then keep the child's next request quiet (a second notice,
marked read); the Profiles tab exports the child's data to a zip and
deletes the child, each behind the parent's PIN. Screenshots are kept."""
import datetime
import subprocess
import zipfile
from zoneinfo import ZoneInfo

import model_server
from conftest import REPO
from ui import WAIT, cli, click, css, fill, set_up_family, shot, tid, unlock_parent, visible, wait


def to_tab(drv, name):
    """Opens a parent tab (scrolled to the top first: the header covers tabs scrolled under it)."""
    drv.execute_script("window.scrollTo(0, 0)")
    click(drv, tid(f"tab-{name}"))


def notice_kinds(drv):
    return [n.get_attribute("data-kind") for n in drv.find_elements(*tid("notice"))]


def test_usage_limits_notices_and_a_replaced_reply(app, data_dir):
    drv = app
    set_up_family(drv)
    visible(drv, css('[data-testid="profile-card"][data-name="小明"]'))
    server = model_server.start()
    try:
        cli(data_dir, "llm", "set", "--agree", "--model", "custom:scripted", "--base-url", f"http://127.0.0.1:{server.server_port}/v1")
        said = cli(data_dir, "chat", "--profile", "小明", "我们做朋友吧")
        assert "地址" not in said
    finally:
        server.shutdown()
    unlock_parent(drv)
    to_tab(drv, "usage")
    # Today's row (newest first): the one answer and its model calls.
    today = visible(drv, tid("usage-day"))
    cells = today.find_elements("css selector", "td")
    assert cells[0].text == "1" and int(cells[1].text) >= 1, today.text
    assert "custom:scripted" in visible(drv, tid("usage-run")).text

    # The replaced reply: a notice that opens what the model wrote, and the conversation.
    wait(drv, lambda d: notice_kinds(d) == ["reply_replaced"])
    click(drv, tid("notice-open"))
    reply = visible(drv, tid("replaced-reply"))
    assert "先告诉我你家的地址" in drv.find_element(*tid("replaced-original")).text
    conversation = drv.find_element(*tid("replaced-conversation")).text
    assert "我们做朋友吧" in conversation and "先告诉我你家的地址" not in conversation
    drv.execute_script("arguments[0].scrollIntoView({block: 'end'})", reply)
    shot(drv, "notice-replaced-reply")
    click(drv, tid("replaced-close"))

    # Limits: a bad value is named under its field, nothing saved.
    fill(drv, "limits-chat", "2000")
    click(drv, tid("limits-save"))
    assert "一天最多 1440 分钟" in visible(drv, css("#limits-chat-error")).text
    assert cli(data_dir, "limits", "show", "--profile", "小明", "--json") == {}
    # Quiet hours around now (the child's time zone) and 30 minutes of chat.
    now = datetime.datetime.now(ZoneInfo("Asia/Shanghai"))
    start = (now - datetime.timedelta(hours=1)).strftime("%H:%M")
    end = (now + datetime.timedelta(hours=1)).strftime("%H:%M")
    fill(drv, "limits-chat", "30")
    fill(drv, "limits-from", start)
    fill(drv, "limits-to", end)
    click(drv, tid("limits-save"))
    visible(drv, tid("limits-saved"))
    assert cli(data_dir, "limits", "show", "--profile", "小明", "--json") == {
        "chat_minutes": 30, "quiet": {"from": start, "to": end}}

    # In quiet hours the child's request is answered kindly and the parent told.
    subprocess.run([str(REPO / "target/debug/deskmate"), "--data-dir", str(data_dir), "say", "--profile", "小明", "你好"],
                   capture_output=True, timeout=WAIT)
    to_tab(drv, "ask")
    to_tab(drv, "usage")
    wait(drv, lambda d: sorted(notice_kinds(d)) == ["quiet_hours", "reply_replaced"])
    quiet = drv.find_element(*css('[data-testid="notice"][data-kind="quiet_hours"]'))
    assert f"休息时间（{start}–{end}）" in quiet.text
    quiet.find_element(*tid("notice-read")).click()
    wait(drv, lambda d: d.find_element(*css('[data-testid="notice"][data-kind="quiet_hours"]')).get_attribute("data-unread") is None)
    unread = cli(data_dir, "notices", "list", "--unread", "--json")
    assert [n["kind"] for n in unread] == ["reply_replaced"]
    shot(drv, "usage-limits")


def test_a_childs_data_exported_and_deleted_behind_the_pin(app, data_dir):
    drv = app
    to_tab(drv, "profiles")
    ming = css('[data-testid="profile-row"][data-name="小明"]')
    visible(drv, ming).find_element(*tid("child-export")).click()
    path = visible(drv, tid("child-export-path"))
    wait(drv, lambda d: path.get_attribute("value").endswith(".zip"))
    out = data_dir / "小明.zip"
    fill(drv, "child-export-path", str(out))
    fill(drv, "child-data-pin", "2468")
    click(drv, tid("child-data-submit"))
    assert str(out) in visible(drv, tid("child-exported")).text
    with zipfile.ZipFile(out) as z:
        names = z.namelist()
        messages = z.read("messages.json").decode()
    assert {"README.txt", "messages.json", "messages.csv", "replaced_replies.json"} <= set(names), names
    assert "我们做朋友吧" in messages

    # Delete: the name typed and the PIN; a wrong PIN deletes nothing.
    drv.find_element(*ming).find_element(*tid("child-delete")).click()
    visible(drv, tid("child-delete-warning"))
    fill(drv, "child-delete-name", "小明")
    fill(drv, "child-data-pin", "1111")
    click(drv, tid("child-data-submit"))
    assert "密码不对" in visible(drv, tid("child-data-error")).text
    assert any(p["name"] == "小明" for p in cli(data_dir, "profiles", "list", "--json"))
    fill(drv, "child-data-pin", "2468")
    click(drv, tid("child-data-submit"))
    done = visible(drv, tid("child-deleted"))
    assert "已删除小明和全部数据" in done.text and "messages" in done.text
    wait(drv, lambda d: not d.find_elements(*ming))
    assert not any(p["name"] == "小明" for p in cli(data_dir, "profiles", "list", "--json"))
    shot(drv, "child-deleted")
