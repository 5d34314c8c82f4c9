// AG-UI over HTTP through the official client: @ag-ui/client's HttpAgent
// posts RunAgentInput to the real `deskmate serve`'s POST /ag-ui (with the
// API token) and reads the companion's run as AG-UI events. The stream
// passes `verifyEvents` and @ag-ui/core's schemas, carries the client's own
// thread and run ids, and a second run with the same thread id continues
// the same conversation (the model sees the first answer). A run that
// pauses for an approval ends with AG-UI 1.0's interrupt outcome, and a
// second run whose `resume` answers it continues it. A request without the
// token is refused. The model is the scripted server on
// loopback (scripted-model.mjs).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";

import { HttpAgent, verifyEvents } from "@ag-ui/client";
import { EventSchema, RunAgentInputSchema } from "@ag-ui/core/schemas";
import { from, lastValueFrom, toArray } from "rxjs";

import { dataDir, deskmate, deskmateBinary } from "./deskmate-cli.mjs";
import { startScriptedModel, text, toolCalls } from "./scripted-model.mjs";

const FIRST = "第一句";
const SECOND = "第二句";
const PLAN = "做个计划";

describe("AG-UI over HTTP (deskmate serve)", () => {
  let model;
  let data;
  let server;
  let url;
  let token;

  before(async () => {
    // Answers each question by its words; the second says what it saw before.
    model = await startScriptedModel((body) => {
      const said = (body.messages ?? []).map((m) => String(m.content ?? ""));
      const last = said[said.length - 1] ?? "";
      if (body.messages?.at(-1)?.role === "tool") return text("计划好了。");
      if (last.includes(PLAN)) {
        return toolCalls([["call_plan", "write_todos", { todos: [{ content: "读一遍", status: "pending" }] }]]);
      }
      if (last.includes(SECOND)) {
        return text(said.some((s) => s.includes("你好呀")) ? "记得你好呀" : "不记得");
      }
      return text("你好呀");
    });
    data = dataDir();
    const set = await deskmate(data.dir, ["llm", "set", "--agree", "--model", "openai:gpt-4o-mini", "--base-url", model.baseUrl]);
    assert.equal(set.code, 0, set.stderr);
    const printed = await deskmate(data.dir, ["serve", "--print-token"], { env: { DESKMATE_API_TOKEN: "" } });
    token = printed.stdout.trim();
    assert.match(token, /^[0-9a-f]{64}$/);
    const env = { ...process.env, DESKMATE_LLM_API_KEY: "sk-clients", DESKMATE_API_TOKEN: "" };
    delete env.DESKMATE_DATA_DIR;
    server = spawn(deskmateBinary(), ["--data-dir", data.dir, "serve", "--port", "0"], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    url = await new Promise((resolve, reject) => {
      let err = "";
      // The address is read from a whole line: stderr may arrive in pieces.
      server.stderr.on("data", (b) => {
        err += b;
        const line = err.split("\n").find((l, i, all) => i < all.length - 1 && l.includes("listening on"));
        const found = line?.match(/http:\/\/[0-9.]+:[0-9]+/);
        if (found) resolve(found[0]);
      });
      server.once("exit", (code) => reject(new Error(`deskmate serve exited with ${code}: ${err}`)));
    });
  });

  after(async () => {
    server?.kill();
    await model?.close();
    data?.remove();
  });

  function input(threadId, runId, messages) {
    return { threadId, runId, messages, tools: [], context: [], state: {}, forwardedProps: {} };
  }

  test("a run streams verified events with the client's ids; the thread goes on", async () => {
    const agent = new HttpAgent({ url: `${url}/ag-ui`, headers: { Authorization: `Bearer ${token}` } });
    const first = [{ id: "u1", role: "user", content: FIRST }];
    const events = await lastValueFrom(agent.run(input("client-thread", "client-run-1", first)).pipe(toArray()));
    await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
    for (const ev of events) {
      assert.doesNotThrow(() => EventSchema.parse(ev), `${ev.type} does not fit @ag-ui/core's schema`);
    }
    const kinds = events.map((e) => e.type);
    assert.equal(kinds[0], "RUN_STARTED");
    assert.equal(kinds.at(-1), "RUN_FINISHED");
    assert.deepEqual(
      [events[0].threadId, events[0].runId, events.at(-1).threadId, events.at(-1).runId],
      ["client-thread", "client-run-1", "client-thread", "client-run-1"],
    );
    const said = events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    assert.equal(said, "你好呀");

    // The same thread id: the same conversation, as the model's request shows.
    const second = [...first, { id: "a1", role: "assistant", content: said }, { id: "u2", role: "user", content: SECOND }];
    const more = await lastValueFrom(agent.run(input("client-thread", "client-run-2", second)).pipe(toArray()));
    await lastValueFrom(from(more).pipe(verifyEvents(false), toArray()));
    const answer = more.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    assert.equal(answer, "记得你好呀");
  });

  test("a run paused for an approval ends with the interrupt outcome; resume continues it", async () => {
    const agent = new HttpAgent({ url: `${url}/ag-ui`, headers: { Authorization: `Bearer ${token}` } });
    const asked = [{ id: "p1", role: "user", content: PLAN }];
    const paused = { ...input("plan-thread", "plan-run-1", asked), forwardedProps: { approvals: ["write_todos"] } };
    RunAgentInputSchema.parse(paused);
    const events = await lastValueFrom(agent.run(paused).pipe(toArray()));
    await lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
    for (const ev of events) EventSchema.parse(ev);
    const end = events.at(-1);
    assert.equal(end.type, "RUN_FINISHED");
    assert.equal(end.outcome?.type, "interrupt", JSON.stringify(end));
    const [interrupt] = end.outcome.interrupts;
    assert.equal(interrupt.toolCallId, "call_plan");
    assert.equal(interrupt.reason, "tool_approval");

    // The answer, in AG-UI 1.0's resume entries, on the same thread.
    const resumed = {
      ...input("plan-thread", "plan-run-2", asked),
      resume: [{ interruptId: interrupt.id, status: "resolved", payload: { approved: true } }],
    };
    RunAgentInputSchema.parse(resumed);
    const more = await lastValueFrom(agent.run(resumed).pipe(toArray()));
    await lastValueFrom(from(more).pipe(verifyEvents(false), toArray()));
    for (const ev of more) EventSchema.parse(ev);
    assert.deepEqual([more[0].threadId, more[0].runId], ["plan-thread", "plan-run-2"]);
    const result = more.find((e) => e.type === "TOOL_CALL_RESULT");
    assert.equal(result?.toolCallId, "call_plan");
    const answer = more.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
    assert.equal(answer, "计划好了。");
    assert.notEqual(more.at(-1).outcome?.type, "interrupt");

    // Nothing waits now: another resume is refused.
    const again = await fetch(`${url}/ag-ui`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
      body: JSON.stringify({ ...resumed, runId: "plan-run-3" }),
    });
    assert.equal(again.status, 409);
  });

  test("without the token the run is refused and nothing is asked of the model", async () => {
    const asked = model.requests.length;
    const res = await fetch(`${url}/ag-ui`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/event-stream" },
      body: JSON.stringify(input("t", "r", [{ id: "u", role: "user", content: FIRST }])),
    });
    assert.equal(res.status, 401);
    assert.equal((await res.json()).code, "auth.missing");
    assert.equal(model.requests.length, asked);
  });
});
