"""The parent area's screens of what the companion knows, in the real
window: a document added to a knowledge base with its embedding progress
(the real sentence encoder from DESKMATE_MODELS_DIR or <repo>/models), a
memory of the child added, edited and deleted, and an MCP server (the npm
reference server, installed in tests/clients) added, allowed for the child
and its tools listed. Each change is checked through the `deskmate` CLI on
the same data directory. Takes about 30 s."""
import os

import pytest
from conftest import REPO
from selenium.webdriver.remote.file_detector import UselessFileDetector
from ui import click, cli, fill, set_up_family, shot, tid, unlock_parent, visible, wait

EVERYTHING = REPO / "tests/clients/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
EMBED_WAIT = 120  # the encoder loads, then ~40 passages on 2 busy cores


def app_env(data_dir):
    return {"DESKMATE_MODELS_DIR": os.environ.get("DESKMATE_MODELS_DIR", str(REPO / "models"))}


def lesson():
    """A long lesson (~40 passages of 1000 characters), one fact per paragraph."""
    paragraphs = [f"第{i}段：小蝌蚪今天游了{i}圈，找到了{i % 7 + 1}片荷叶，青蛙妈妈说它长大了一点点。" * 6 for i in range(1, 121)]
    return "# 小蝌蚪找妈妈\n\n" + "\n\n".join(paragraphs) + "\n"


def test_knowledge_memories_and_tools_in_the_parent_area(app, data_dir):
    drv = app
    drv.file_detector = UselessFileDetector()
    set_up_family(drv, parent="妈妈", pin="2468", child="小明")
    unlock_parent(drv, "妈妈", "2468")

    # A knowledge base: the document's progress grows to the end, then it is listed.
    click(drv, tid("tab-knowledge"))
    visible(drv, tid("knowledge-screen"))
    doc = data_dir / "小蝌蚪.md"
    doc.write_text(lesson(), encoding="utf-8")
    fill(drv, "knowledge-base-name", "语文")
    drv.find_element(*tid("knowledge-files")).send_keys(str(doc))
    click(drv, tid("knowledge-add-button"))
    visible(drv, tid("knowledge-progress"), EMBED_WAIT)
    added = visible(drv, tid("knowledge-added"), EMBED_WAIT)
    assert "小蝌蚪.md" in added.text
    bar = drv.find_element(*tid("knowledge-progress")).find_element("css selector", '[role="progressbar"]')
    assert bar.get_attribute("aria-valuenow") == "100"
    bases = cli(data_dir, "kb", "list", "--json")
    mine = next(b for b in bases if b["name"] == "语文")
    assert mine["documents"] == 1 and mine["chunks"] >= 20, mine
    assert f"{mine['chunks']} / {mine['chunks']}" in drv.find_element(*tid("knowledge-progress")).text
    wait(drv, lambda d: d.find_elements(*tid("knowledge-document")))
    shot(drv, "knowledge-01-added")

    # A memory: added, edited, deleted.
    click(drv, tid("tab-memories"))
    visible(drv, tid("memories-screen"))
    fill(drv, "memory-new-text", "喜欢恐龙")
    click(drv, tid("memory-add"))
    visible(drv, tid("memory-item"))
    click(drv, tid("memory-edit"))
    fill(drv, "memory-edit-text", "喜欢霸王龙")
    click(drv, tid("memory-save"))
    wait(drv, lambda d: d.find_element(*tid("memory-text")).text == "喜欢霸王龙")
    kept = cli(data_dir, "memory", "list", "--profile", "小明", "--json")
    assert [(m["text"], m["source"]) for m in kept] == [("喜欢霸王龙", "parent")]
    shot(drv, "knowledge-02-memory")
    click(drv, tid("memory-delete"))
    visible(drv, tid("memories-empty"))
    assert cli(data_dir, "memory", "list", "--profile", "小明", "--json") == []

    # An MCP server: added as a command, allowed for 小明, its tools listed.
    if not EVERYTHING.is_file():
        pytest.fail(f"the MCP reference server is not installed at {EVERYTHING} (npm ci in tests/clients)")
    click(drv, tid("tab-mcp"))
    visible(drv, tid("mcp-screen"))
    fill(drv, "mcp-name", "everything")
    fill(drv, "mcp-command", f"node {EVERYTHING} stdio")
    click(drv, tid("mcp-add"))
    server = visible(drv, tid("mcp-server"))
    child = cli(data_dir, "profiles", "list", "--json")
    ming = next(p for p in child if p["name"] == "小明")
    click(drv, tid(f"mcp-allow-{ming['id']}"))
    wait(drv, lambda d: d.find_element(*tid(f"mcp-allow-{ming['id']}")).is_selected())
    click(drv, tid("mcp-tools"))
    wait(drv, lambda d: d.find_elements(*tid("mcp-tool")), 60)
    names = [t.text.split(" ")[0] for t in drv.find_elements(*tid("mcp-tool"))]
    assert "mcp__everything__echo" in names, names
    listed = cli(data_dir, "mcp", "list", "--json")
    assert listed[0]["transport"] == {"type": "stdio", "command": "node", "args": [str(EVERYTHING), "stdio"], "env": {}}
    assert listed[0]["profiles"] == [ming["id"]]
    assert server.get_attribute("data-name") == "everything"
    shot(drv, "knowledge-03-mcp")
