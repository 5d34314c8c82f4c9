"""The orchestrator's entry and the recitation check through `deskmate
serve`: a child's words routed to a scene (the same response as `deskmate
say --json`), a file that is not a photo refused with the entry's coded
error in the response (as the window gets it) and nothing left in inbox/, and a typed recitation of 静夜思 checked
synchronously against the built-in material."""
import base64
import os
import subprocess

import httpx

from conftest import BIN


def http(api):
    url, token, _, _ = api
    return httpx.Client(base_url=url, headers={"x-api-key": token}, timeout=30)


def child(data):
    env = dict(os.environ, DESKMATE_DATA_DIR=str(data))
    listed = subprocess.run([BIN, "profiles", "list"], env=env, capture_output=True, text=True, check=True)
    if "小明" not in listed.stdout:
        subprocess.run([BIN, "profiles", "setup", "--parent-name", "妈妈", "--pin", "2468",
                        "--child-name", "小明", "--grade", "2"], env=env, check=True, capture_output=True)


def test_a_childs_words_go_through_the_one_entry(api):
    data = api[3]
    child(data)
    with http(api) as c:
        r = c.post("/orchestrator/process", json={"profile": "小明", "text": "我要背静夜思"})
        assert r.status_code == 200, r.text
        body = r.json()
        assert (body["scene"], body["intent"]) == ("recite", "recite"), body
        assert body["material"]["title"] == "静夜思"
        assert body["trace_id"] and body["error"] is None

        # Not a photo: the entry's coded error, and no photo file left behind.
        junk = base64.b64encode(b"not an image at all").decode()
        r = c.post("/orchestrator/process",
                   json={"profile": "小明", "text": "", "photos": [{"name": "sheet.jpg", "data": junk}]})
        assert r.status_code == 200, r.text
        assert r.json()["error"]["code"] == "homework.not_an_image"
        assert r.json()["scene"] == "recite", "the child stays where they were"
        assert list((data / "inbox").glob("*")) == []

        r = c.post("/orchestrator/process", json={"profile": "nobody", "text": "你好"})
        assert r.status_code == 404
        r = c.post("/orchestrator/process", json={"profile": "小明", "text": "  "})
        assert (r.status_code, r.json()["code"]) == (422, "invalid")


def test_a_recitation_is_checked_synchronously(api):
    with http(api) as c:
        right = c.post("/recitation/check", json={
            "material": "静夜思", "transcript": "床前明月光，疑是地上霜。举头望明月，低头思故乡。"})
        assert right.status_code == 200, right.text
        assert right.json()["passed"] is True and right.json()["accuracy"] == 100
        wrong = c.post("/recitation/check", json={
            "reference": "床前明月光，疑是地上霜。", "transcript": "床前明月光，疑是地上雪。"})
        judged = wrong.json()
        assert judged["accuracy"] < 100
        assert any(e.get("expected") == "霜" for e in judged["errors"]), judged["errors"]
        neither = c.post("/recitation/check", json={"transcript": "x"})
        assert (neither.status_code, neither.json()["code"]) == (422, "invalid")
