"""Parents' routines through `deskmate serve` (`/workflows`): a routine with
problems refused with each of them and nothing saved, one saved, run for a
child until it waits for a recitation, resumed once the child has recited,
replaced only under its own name, and deleted with its runs."""
import os
import subprocess

import httpx

from conftest import BIN
from test_scenes import child


def http(api):
    url, token, _, _ = api
    return httpx.Client(base_url=url, headers={"x-api-key": token}, timeout=30)


ROUTINE = {
    "name": "bedtime",
    "description": "due reviews, 静夜思, a note",
    "nodes": [
        {"id": "start", "type": "start", "next": "due"},
        {"id": "due", "type": "tool", "tool": "due_reviews", "args": {}, "next": "recite"},
        {"id": "recite", "type": "recite", "material": "静夜思", "next": "note"},
        {"id": "note", "type": "notify_parent", "message": "睡前: {last}", "next": "end"},
        {"id": "end", "type": "end"},
    ],
}


def test_a_routine_is_saved_run_resumed_and_deleted(api):
    data = api[3]
    child(data)
    with http(api) as c:
        broken = dict(ROUTINE, nodes=ROUTINE["nodes"][:-1])
        r = c.post("/workflows", json=broken)
        assert (r.status_code, r.json()["code"]) == (422, "invalid"), r.text
        assert "routine.no_end" in r.json()["message"]
        assert c.get("/workflows").json() == []

        r = c.post("/workflows", json=ROUTINE)
        assert r.status_code == 201, r.text
        assert [x["name"] for x in c.get("/workflows").json()] == ["bedtime"]

        r = c.post("/workflows/bedtime/runs", json={"profile": "小明", "input": "晚安"})
        assert r.status_code == 200, r.text
        run = r.json()["run"]
        assert (run["status"], run["at"]) == ("waiting", "recite"), run
        kinds = [(e["type"], e["node"]) for e in r.json()["events"] if e["type"] == "node_started"]
        assert kinds == [("node_started", n) for n in ["start", "due", "recite"]]

        env = dict(os.environ, DESKMATE_DATA_DIR=str(data))
        subprocess.run([BIN, "recite", "attempt", "--profile", "小明", "--material", "静夜思",
                        "--transcript", "床前明月光疑是地上霜举头望明月低头思故乡"],
                       env=env, check=True, capture_output=True)
        r = c.post(f"/workflow-runs/{run['id']}/resume")
        assert r.status_code == 200, r.text
        done = r.json()["run"]
        assert done["status"] == "finished", done
        assert done["steps"][-2] == {"node": "note", "output": "睡前: 静夜思: 100% passed"}

        shown = c.get("/workflows/bedtime").json()
        assert [x["id"] for x in shown["runs"]] == [run["id"]]
        r = c.put("/workflows/bedtime", json=dict(ROUTINE, name="other"))
        assert r.status_code == 422, r.text
        assert c.put("/workflows/bedtime", json=dict(ROUTINE, description="new")).status_code == 200
        assert c.delete("/workflows/bedtime").status_code == 204
        assert c.get("/workflows/bedtime").status_code == 404
        assert c.post(f"/workflow-runs/{run['id']}/resume").status_code == 404
