"""The deep-agents backend's dialect on the same `deskmate serve` (design:
the deep-agents-langchain initial design, section 7): `GET /assistants`
with model and tools, `POST /threads {metadata, initial_state}` →
`{thread_id}`, a run without `assistant_id`/`stream_mode` answered with the
events `message`, `tool`, `end` exactly as the design's example (the
scripted model asks for `write_todos`, then answers), `stream: false` as one
JSON answer, `GET /threads/{id}/state` and `PUT` merging or replacing."""
import json

import httpx

import model_server


def sse(response):
    """(event, data) pairs of a text/event-stream response."""
    out, event, data = [], None, []
    for line in response.iter_lines():
        if line.startswith("event:"):
            event = line[6:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "" and event is not None:
            out.append((event, json.loads("\n".join(data))))
            event, data = None, []
    return out


def http(api):
    url, token, _, _ = api
    return httpx.Client(base_url=url, headers={"Authorization": f"Bearer {token}"}, timeout=30)


def test_the_dialects_run_stream_state_and_assistants(api):
    with http(api) as c:
        [assistant] = c.get("/assistants").json()
        assert assistant["model"] == "openai:scripted"
        assert {"read_file", "write_file", "edit_file", "write_todos", "task"} <= set(assistant["tools"])

        created = c.post("/threads", json={"metadata": {"from": "deep"}, "initial_state": {"vars": {"grade": 2}}})
        assert created.status_code == 200
        tid = created.json()["thread_id"]

        ask = {"input": {"messages": [{"role": "user", "content": "静夜思是什么意思？"}]}, "stream": True}
        with c.stream("POST", f"/threads/{tid}/runs/stream", json=ask) as r:
            assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
            events = sse(r)
        assert [e for e, _ in events] == ["message", "tool", "message", "end"], events
        (_, m1), (_, tool), (_, m2), (_, end) = events
        # Field for field as the design's example.
        assert set(m1) == {"message_id", "thread_id", "role", "tool_calls"}
        assert (m1["thread_id"], m1["role"]) == (tid, "assistant")
        assert m1["tool_calls"] == [{"id": "call_todos", "name": "write_todos",
                                     "args": model_server.TODOS, "status": "pending"}]
        assert set(tool) == {"tool_call_id", "status", "result"}
        assert (tool["tool_call_id"], tool["status"]) == ("call_todos", "completed")
        assert set(m2) == {"message_id", "thread_id", "role", "content", "tool_calls"}
        assert (m2["content"], m2["tool_calls"]) == (model_server.ANSWER, [])
        assert m1["message_id"] != m2["message_id"]
        assert set(end) == {"run_id", "status", "error"}
        assert (end["status"], end["error"]) == ("completed", None)

        state = c.get(f"/threads/{tid}/state").json()
        assert state["thread_id"] == tid
        assert state["state"] == {"todos": model_server.TODOS["todos"], "vars": {"grade": 2}}
        assert state["messages_summary"] == [] and isinstance(state["files"], list)
        assert state["updated_at"]

        # Merge: vars key by key, todos only when given.
        merged = c.put(f"/threads/{tid}/state", json={"state": {"vars": {"term": "autumn"}}})
        assert merged.json()["state"] == {"todos": model_server.TODOS["todos"],
                                          "vars": {"grade": 2, "term": "autumn"}}
        replaced = c.put(f"/threads/{tid}/state", json={"state": {"vars": {"x": 1}}, "replace": True})
        assert replaced.json()["state"] == {"todos": [], "vars": {"x": 1}}
        bad = c.put(f"/threads/{tid}/state", json={"state": {"todos": "not a list"}})
        assert bad.status_code == 422 and bad.json()["code"] == "invalid"
        assert c.get(f"/threads/{tid}/state").json()["state"] == {"todos": [], "vars": {"x": 1}}

        # stream: false answers once, with the same messages.
        once = c.post(f"/threads/{tid}/runs/stream",
                      json={"input": {"messages": [{"role": "user", "content": "你好"}]}, "stream": False})
        body = once.json()
        assert (body["status"], body["error"], body["thread_id"]) == ("completed", None, tid)
        assert [(m["content"], m["tool_calls"]) for m in body["messages"]] == [("pong", [])]

        missing = c.post("/threads/0190f0f0-0000-7000-8000-000000000000/runs/stream", json=ask)
        assert missing.status_code == 404 and missing.json()["code"] == "not_found"
