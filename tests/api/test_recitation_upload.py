"""A recitation by upload through the real `deskmate serve`: a dev clip of
静夜思 (the manifest's case with its second line left out) sent as a form
to `POST /recitation/check`, judged by the same function `deskmate recite
audio --json` runs, and then as a recitation task for the child, polled
and streamed to its end — its attempt recorded once; the same clip through
the one entry (`POST /orchestrator/process`), heard as words. Also the refusals a
client meets first: a form without the recording, a file that is no
recording, an unknown task. The speech models come from
DESKMATE_MODELS_DIR (the server inherits it); each check is one whisper
decode of a five-second clip."""
import json
import os
import sqlite3
import subprocess
import threading
from pathlib import Path

import httpx

from conftest import BIN, REPO

CLIPS = Path(os.environ.get("DESKMATE_DEV_CLIPS", REPO.parent / "shared" / "recite-audio-dev"))


def clip():
    """The 静夜思 case with one line omitted, from the clips' manifest."""
    for line in (CLIPS / "manifest.jsonl").read_text(encoding="utf-8").splitlines():
        case = json.loads(line)
        if case["material"] == "静夜思" and case["expected_errors"] == [{"type": "omission", "line": 2}]:
            return case, (CLIPS / case["wav"]).read_bytes()
    raise AssertionError(f"no 静夜思 case with line 2 omitted in {CLIPS}/manifest.jsonl")


def http(api):
    url, token, _, _ = api
    return httpx.Client(base_url=url, headers={"x-api-key": token}, timeout=60)


def child(data):
    env = dict(os.environ, DESKMATE_DATA_DIR=str(data))
    listed = subprocess.run([BIN, "profiles", "list"], env=env, capture_output=True, text=True, check=True)
    if "小明" not in listed.stdout:
        subprocess.run([BIN, "profiles", "setup", "--parent-name", "妈妈", "--pin", "2468",
                        "--child-name", "小明", "--grade", "2"], env=env, check=True, capture_output=True)


def attempts(data):
    """The recorded recitation attempts (read-only, beside the running server)."""
    with sqlite3.connect(f"file:{data / 'deskmate.sqlite3'}?mode=ro", uri=True) as db:
        return db.execute("SELECT count(*) FROM recite_attempts").fetchone()[0]


def omitted_line_two(checked):
    errors = checked["verdict"]["errors"]
    return any(e["type"] == "omission" and e["line"] == 2 and not e["uncertain"] for e in errors)


def test_a_recording_is_checked_then_run_as_a_task_polled_and_streamed(api):
    data = api[3]
    child(data)
    case, wav = clip()
    before = attempts(data)
    with http(api) as c:
        # Synchronously, for no child: the verdict as `recite audio --json` prints it.
        r = c.post("/recitation/check", data={"material": case["material"]},
                   files={"audio": (case["wav"], wav, "audio/wav")})
        assert r.status_code == 200, r.text
        checked = r.json()
        assert checked["speech"] is True and checked["not_an_attempt"] is None, checked
        assert omitted_line_two(checked), checked["verdict"]["errors"]
        assert checked["verdict"]["passed"] is False
        assert checked["attempt"] is None, "nothing is recorded without a child"
        assert set(checked["timings"]) >= {"decode_ms", "vad_ms", "asr_ms", "check_ms", "total_ms"}
        assert attempts(data) == before

        # As a task for the child: 202 at once, then streamed and polled to the end.
        r = c.post("/recitation/tasks", data={"material": case["material"], "profile": "小明"},
                   files={"audio": (case["wav"], wav, "audio/wav")})
        assert r.status_code == 202, r.text
        task_id = r.json()["task_id"]
        assert r.json()["status"] == "queued"

        polled = []

        def poll():
            with http(api) as p:
                while True:
                    state = p.get(f"/recitation/tasks/{task_id}").json()
                    polled.append(state)
                    if state["status"] in ("done", "failed"):
                        return
                    threading.Event().wait(0.05)

        poller = threading.Thread(target=poll)
        poller.start()
        events = []
        with c.stream("GET", f"/recitation/tasks/{task_id}/stream") as s:
            assert s.status_code == 200
            assert s.headers["content-type"].startswith("text/event-stream")
            name = None
            for line in s.iter_lines():
                if line.startswith("event:"):
                    name = line.split(":", 1)[1].strip()
                elif line.startswith("data:"):
                    events.append((name, json.loads(line.split(":", 1)[1])))
        poller.join(timeout=60)

        names = [n for n, _ in events]
        assert names[-1] == "done" and set(names[:-1]) <= {"progress"}, names
        steps = [e["progress"]["step"] for _, e in events]
        assert steps == sorted(steps), steps
        final = events[-1][1]
        assert final["status"] == "done" and final["progress"]["records"] is True
        result = final["result"]
        assert omitted_line_two(result), result["verdict"]["errors"]
        assert result["attempt"]["title"] == "静夜思"
        assert result["verdict"]["accuracy"] == checked["verdict"]["accuracy"], "the same judgement"
        assert polled[-1]["status"] == "done" and polled[-1]["result"] == result
        assert {s["status"] for s in polled} <= {"queued", "running", "done"}

        # Joining late: the final state at once.
        with c.stream("GET", f"/recitation/tasks/{task_id}/stream") as s:
            late = [line for line in s.iter_lines() if line.startswith("event:")]
        assert late == ["event: done"]
    assert attempts(data) == before + 1, "the task recorded one attempt"


def test_a_recording_goes_through_the_one_entry(api):
    data = api[3]
    child(data)
    case, wav = clip()
    with http(api) as c:
        r = c.post("/orchestrator/process", data={"profile": "小明"},
                   files={"audio": (case["wav"], wav, "audio/wav")})
        assert r.status_code == 200, r.text
        said = r.json()
        assert said["error"] is None and said["trace_id"], said
        assert "月" in (said["heard"] or ""), said["heard"]
    assert not (data / "inbox").exists() or list((data / "inbox").glob("*")) == []


def test_uploads_without_a_recording_are_refused_and_store_nothing(api):
    data = api[3]
    child(data)
    before = attempts(data)
    with http(api) as c:
        r = c.post("/recitation/tasks", data={"material": "静夜思", "profile": "小明"},
                   files={"photo": ("sheet.jpg", b"\xff\xd8", "image/jpeg")})
        assert (r.status_code, r.json()["code"]) == (422, "invalid"), r.text
        r = c.post("/recitation/check", data={"material": "静夜思", "profile": "小明"},
                   files={"audio": ("said.flac", b"fLaC but nothing else", "audio/flac")})
        assert (r.status_code, r.json()["code"]) == (422, "speech.audio"), r.text
        assert "said.flac" in r.json()["message"]
        r = c.post("/recitation/check", content=b"\x00\x01", headers={"content-type": "audio/wav"})
        assert (r.status_code, r.json()["code"]) == (415, "body.wrong_type"), r.text
        r = c.get("/recitation/tasks/00000000-0000-0000-0000-000000000000")
        assert (r.status_code, r.json()["code"]) == (404, "not_found")
    assert attempts(data) == before
    assert not (data / "inbox").exists() or list((data / "inbox").glob("*")) == []
