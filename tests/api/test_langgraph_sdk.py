"""The official LangGraph Python SDK (`langgraph-sdk`) against the real
`deskmate serve`, unchanged: the companion found by assistants search, a
thread created, runs streamed in several modes (metadata first, values,
updates, messages-tuple, end last), the thread's state and history, a second
run on the same thread with a tool call, a run waited for, and an interrupt
from the approval feature resumed with a parent's decision."""
import httpx
import pytest

import model_server

USER_INPUT = {"messages": [{"role": "user", "content": "你好"}]}
POEM_INPUT = {"messages": [{"role": "user", "content": "静夜思是什么意思？"}]}


def texts(values):
    return [(m["type"], m["content"]) for m in values["messages"]]


def test_the_companion_is_the_one_assistant(client):
    found = client.assistants.search()
    assert [a["graph_id"] for a in found] == ["companion"]
    one = client.assistants.get(found[0]["assistant_id"])
    assert one["assistant_id"] == found[0]["assistant_id"]
    assert client.assistants.search(graph_id="another") == []
    with pytest.raises(httpx.HTTPStatusError) as e:
        client.assistants.get("no-such-assistant")
    assert e.value.response.status_code == 404
    assert e.value.response.json()["code"] == "not_found"


def test_streamed_runs_state_and_history(client, api):
    _, _, model, _ = api
    thread = client.threads.create(metadata={"suite": "api"})
    assert thread["status"] == "idle" and thread["metadata"] == {"suite": "api"}

    parts = list(client.runs.stream(thread["thread_id"], "companion", input=USER_INPUT,
                                    stream_mode=["values", "updates", "messages-tuple", "custom"]))
    events = [p.event for p in parts]
    assert events[0] == "metadata" and events[-1] == "end", events
    run_id = parts[0].data["run_id"]
    assert parts[-1].data == {"run_id": run_id, "status": "success"}
    # Tokens as they stream, with the node that wrote them.
    chunks = [p.data for p in parts if p.event == "messages"]
    assert "".join(c[0]["content"] for c in chunks) == "pong"
    assert all(c[1]["langgraph_node"] == "agent" and c[1]["run_id"] == run_id for c in chunks)
    # The model's step as an update; the whole conversation as values.
    updates = [p.data for p in parts if p.event == "updates"]
    assert updates == [{"agent": {"messages": [updates[0]["agent"]["messages"][0]]}}]
    assert updates[0]["agent"]["messages"][0]["content"] == "pong"
    values = [p.data for p in parts if p.event == "values"]
    assert texts(values[0]) == [("human", "你好")]
    assert texts(values[-1]) == [("human", "你好"), ("ai", "pong")]

    state = client.threads.get_state(thread["thread_id"])
    assert texts(state["values"]) == [("human", "你好"), ("ai", "pong")]
    assert state["next"] == [] and state["checkpoint"]["checkpoint_id"] == run_id

    # A second run on the same thread: the model asks for a tool, then answers.
    asked_before = len(model.requests)
    parts = list(client.runs.stream(thread["thread_id"], "companion", input=POEM_INPUT,
                                    stream_mode="updates"))
    second = parts[0].data["run_id"]
    assert second != run_id
    nodes = [list(p.data)[0] for p in parts if p.event == "updates"]
    assert nodes == ["agent", "tools", "agent"], nodes
    calls = [p.data for p in parts if p.event == "updates"][0]["agent"]["messages"][0]["tool_calls"]
    assert [(c["name"], c["args"]) for c in calls] == [("write_todos", model_server.TODOS)]
    # The model saw the whole thread, the first run's answer included.
    seen = model.requests[asked_before]["messages"]
    assert any(m.get("role") == "assistant" and "pong" in str(m.get("content")) for m in seen)

    state = client.threads.get_state(thread["thread_id"])
    assert [m["type"] for m in state["values"]["messages"]] == ["human", "ai", "human", "ai", "tool", "ai"]
    assert state["values"]["messages"][-1]["content"] == model_server.ANSWER
    assert state["values"]["todos"] == model_server.TODOS["todos"]

    history = client.threads.get_history(thread["thread_id"])
    assert [h["checkpoint"]["checkpoint_id"] for h in history] == [second, run_id]
    assert len(history[1]["values"]["messages"]) == 2 and len(history[0]["values"]["messages"]) == 6
    assert history[0]["parent_checkpoint"]["checkpoint_id"] == run_id

    # Waited for rather than streamed: the final values.
    final = client.runs.wait(thread["thread_id"], "companion", input=USER_INPUT)
    assert texts(final)[-2:] == [("human", "你好"), ("ai", "pong")]

    # Threads: found by metadata, patched, deleted.
    found = client.threads.search(metadata={"suite": "api"})
    assert thread["thread_id"] in [t["thread_id"] for t in found]
    patched = client.threads.update(thread["thread_id"], metadata={"kept": True})
    assert patched["metadata"] == {"suite": "api", "kept": True}
    client.threads.delete(thread["thread_id"])
    with pytest.raises(httpx.HTTPStatusError) as e:
        client.threads.get(thread["thread_id"])
    assert e.value.response.status_code == 404


def test_an_interrupt_is_resumed_with_a_decision(client, api):
    _, _, model, _ = api
    thread = client.threads.create()
    parts = list(client.runs.stream(thread["thread_id"], "companion", input=POEM_INPUT,
                                    stream_mode=["values", "updates"],
                                    context={"approvals": ["write_todos"]}))
    assert parts[-1].event == "end" and parts[-1].data["status"] == "interrupted"
    last_values = [p.data for p in parts if p.event == "values"][-1]
    [interrupt] = last_values["__interrupt__"]
    assert interrupt["value"]["tool"] == "write_todos"
    assert interrupt["value"]["arguments"] == model_server.TODOS
    assert {"__interrupt__": [interrupt]} in [p.data for p in parts if p.event == "updates"]
    # The tool did not run: the thread waits, and says what for.
    assert client.threads.get(thread["thread_id"])["status"] == "interrupted"
    state = client.threads.get_state(thread["thread_id"])
    assert state["next"] == ["tools"]
    assert [i["id"] for i in state["tasks"][0]["interrupts"]] == [interrupt["id"]]
    assert state["values"]["todos"] == []

    # A new message cannot jump the queue: the thread waits for the decision.
    with pytest.raises(httpx.HTTPStatusError) as e:
        client.runs.wait(thread["thread_id"], "companion", input=USER_INPUT)
    assert e.value.response.status_code == 409

    asked_before = len(model.requests)
    parts = list(client.runs.stream(thread["thread_id"], "companion",
                                    command={"resume": {"decision": "approve"}}, stream_mode="values"))
    assert parts[-1].data["status"] == "success"
    final = [p.data for p in parts if p.event == "values"][-1]
    assert "__interrupt__" not in final
    assert final["messages"][-1]["content"] == model_server.ANSWER
    assert final["todos"] == model_server.TODOS["todos"]
    # The tool ran once approved, and the model saw its result.
    assert any(m.get("role") == "tool" for r in model.requests[asked_before:] for m in r["messages"])
    assert client.threads.get(thread["thread_id"])["status"] == "idle"

    # Nothing waits any more: a resume is refused.
    with pytest.raises(httpx.HTTPStatusError) as e:
        client.runs.wait(thread["thread_id"], "companion", command={"resume": "approve"})
    assert e.value.response.status_code == 409


def test_a_wrong_token_is_refused(api):
    from langgraph_sdk import get_sync_client

    url, _, _, _ = api
    wrong = get_sync_client(url=url, api_key="not-the-token")
    with pytest.raises(httpx.HTTPStatusError) as e:
        wrong.threads.create()
    assert e.value.response.status_code == 401
    assert e.value.response.json()["code"] == "auth.wrong_token"
    assert httpx.get(f"{url}/ok").json() == {"ok": True}


def test_a_background_run_is_joined_replayed_and_another_cancelled(client, api):
    from conftest import wait_for

    _, _, model, _ = api
    thread = client.threads.create()
    tid = thread["thread_id"]
    run = client.runs.create(tid, "companion", input=USER_INPUT,
                             stream_mode=["values", "updates", "messages-tuple"])
    assert run["thread_id"] == tid and run["status"] in ("running", "success")
    final = client.runs.join(tid, run["run_id"])
    assert texts(final) == [("human", "你好"), ("ai", "pong")]
    assert client.runs.get(tid, run["run_id"])["status"] == "success"
    assert [r["run_id"] for r in client.runs.list(tid)] == [run["run_id"]]

    # Its stream is kept: replayed whole, or from after an event id.
    whole = list(client.runs.join_stream(tid, run["run_id"]))
    assert whole[0].event == "metadata" and whole[-1].event == "end"
    assert {"values", "updates", "messages"} <= {p.event for p in whole}
    rest = list(client.runs.join_stream(tid, run["run_id"], last_event_id="1"))
    assert [p.event for p in rest] == [p.event for p in whole[2:]]

    # A run still waiting for the model is stopped; the thread is free again.
    cut = {"messages": [{"role": "user", "content": model_server.CUT_QUESTION}]}
    asked_before = len(model.requests)
    slow = client.runs.create(tid, "companion", input=cut)
    assert wait_for(lambda: len(model.requests) > asked_before), "the model was never asked"
    with pytest.raises(httpx.HTTPStatusError) as e:
        client.runs.create(tid, "companion", input=USER_INPUT)
    assert e.value.response.status_code == 409, "one run at a time on a thread"
    client.runs.cancel(tid, slow["run_id"], wait=True)
    assert client.runs.get(tid, slow["run_id"])["status"] == "interrupted"
    assert client.threads.get(tid)["status"] == "idle"
    with pytest.raises(httpx.HTTPStatusError) as e:
        client.runs.cancel(tid, slow["run_id"])
    assert e.value.response.status_code == 409


def test_a_run_on_a_busy_thread_is_refused_or_waits_its_turn_with_enqueue(client):
    tid = client.threads.create()["thread_id"]
    slow = {"messages": [{"role": "user", "content": model_server.SLOW_QUESTION}]}
    first = client.runs.create(tid, "companion", input=slow)
    # reject, the default: refused while the first run goes on.
    with pytest.raises(httpx.HTTPStatusError) as e:
        client.runs.create(tid, "companion", input=USER_INPUT, multitask_strategy="reject")
    assert e.value.response.status_code == 409
    # enqueue, streamed: it waits for the first run, then runs after it.
    parts = list(client.runs.stream(tid, "companion", input=USER_INPUT, stream_mode="values",
                                    multitask_strategy="enqueue"))
    assert parts[0].event == "metadata" and parts[0].data["run_id"] != first["run_id"]
    assert parts[-1].data["status"] == "success"
    assert texts([p.data for p in parts if p.event == "values"][-1]) == [
        ("human", model_server.SLOW_QUESTION), ("ai", model_server.SLOW_ANSWER),
        ("human", "你好"), ("ai", "pong")]
    assert client.runs.get(tid, first["run_id"])["status"] == "success"
    # enqueue in the background: answered at once as pending, started when
    # its turn comes, joined under the id it was given.
    client.runs.create(tid, "companion", input=slow)
    queued = client.runs.create(tid, "companion", input=USER_INPUT, multitask_strategy="enqueue")
    assert (queued["status"], queued["multitask_strategy"]) == ("pending", "enqueue")
    final = client.runs.join(tid, queued["run_id"])
    assert texts(final)[-4:] == [("human", model_server.SLOW_QUESTION), ("ai", model_server.SLOW_ANSWER),
                                 ("human", "你好"), ("ai", "pong")]
    assert client.runs.get(tid, queued["run_id"])["status"] == "success"


def test_interrupt_stops_the_run_going_on_and_rollback_discards_it(client, api):
    from conftest import wait_for

    _, _, model, _ = api
    tid = client.threads.create()["thread_id"]
    slow = {"messages": [{"role": "user", "content": model_server.SLOW_QUESTION}]}
    asked = len(model.requests)
    first = client.runs.create(tid, "companion", input=slow)
    assert wait_for(lambda: len(model.requests) > asked), "the model was never asked"
    # interrupt: the first run is stopped, its message stays, the new one runs.
    final = client.runs.wait(tid, "companion", input=USER_INPUT, multitask_strategy="interrupt")
    said = texts(final)
    assert said[0] == ("human", model_server.SLOW_QUESTION)
    assert said[-2:] == [("human", "你好"), ("ai", "pong")]
    assert client.runs.get(tid, first["run_id"])["status"] == "interrupted"
    # rollback: the second slow run is stopped and discarded with its message.
    asked = len(model.requests)
    second = client.runs.create(tid, "companion", input=slow)
    assert wait_for(lambda: len(model.requests) > asked), "the model was never asked"
    again = client.runs.wait(tid, "companion", input={"messages": [{"role": "user", "content": "再见"}]},
                             multitask_strategy="rollback")
    assert texts(again) == said + [("human", "再见"), ("ai", "pong")]
    with pytest.raises(httpx.HTTPStatusError) as e:
        client.runs.get(tid, second["run_id"])
    assert e.value.response.status_code == 404
    assert second["run_id"] not in [r["run_id"] for r in client.runs.list(tid)]


def test_a_stateless_run_leaves_no_thread_unless_kept(client):
    before = {t["thread_id"] for t in client.threads.search(limit=1000)}
    parts = list(client.runs.stream(None, "companion", input=USER_INPUT, stream_mode="values"))
    assert parts[0].event == "metadata" and parts[-1].data["status"] == "success"
    assert texts([p.data for p in parts if p.event == "values"][-1]) == [("human", "你好"), ("ai", "pong")]
    final = client.runs.wait(None, "companion", input=USER_INPUT)
    assert texts(final)[-1] == ("ai", "pong")
    assert {t["thread_id"] for t in client.threads.search(limit=1000)} == before
    kept = client.runs.wait(None, "companion", input=USER_INPUT, on_completion="keep")
    assert texts(kept)[-1] == ("ai", "pong")
    assert len({t["thread_id"] for t in client.threads.search(limit=1000)} - before) == 1


def test_update_state_merges_values_but_not_messages(client):
    tid = client.threads.create()["thread_id"]
    todos = [{"content": "背静夜思", "status": "pending"}]
    answer = client.threads.update_state(tid, {"todos": todos, "term": "autumn"})
    assert answer["checkpoint"]["thread_id"] == tid
    state = client.threads.get_state(tid)
    assert state["values"]["todos"] == todos
    assert state["state"]["vars"] == {"term": "autumn"}
    with pytest.raises(httpx.HTTPStatusError) as e:
        client.threads.update_state(tid, {"messages": [{"role": "user", "content": "x"}]})
    assert e.value.response.status_code == 422
