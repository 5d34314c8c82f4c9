// The official LangGraph JS SDK (@langchain/langgraph-sdk) against the real
// `deskmate serve`, unchanged: the companion found by assistants search, a
// thread created, a run streamed in values, updates and messages-tuple
// (metadata first), the thread's state and history, a second run on the
// thread with a tool call, a background run joined, and an interrupt from
// the approval feature resumed with a decision. The Python SDK's tests are
// in tests/api/; the model is the scripted server (scripted-model.mjs).

import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { after, before, describe, test } from "node:test";

import { Client } from "@langchain/langgraph-sdk";

import { dataDir, deskmate, deskmateBinary } from "./deskmate-cli.mjs";
import { startScriptedModel, text, toolCalls } from "./scripted-model.mjs";

const TODOS = { todos: [{ content: "讲静夜思", status: "completed" }] };
const ANSWER = "静夜思写的是思念家乡。";

describe("LangGraph JS SDK against deskmate serve", () => {
  let model;
  let data;
  let server;
  let client;

  before(async () => {
    // A question about 静夜思 asks for write_todos; a tool result gets the
    // answer; anything else gets "pong".
    model = await startScriptedModel((body) => {
      const messages = body.messages ?? [];
      const last = messages[messages.length - 1] ?? {};
      if (last.role === "tool") return text(ANSWER);
      if (last.role === "user" && String(JSON.stringify(last.content)).includes("静夜思")) {
        return toolCalls([["call_todos", "write_todos", TODOS]]);
      }
      return text("pong");
    });
    data = dataDir();
    const set = await deskmate(data.dir, ["llm", "set", "--agree", "--model", "openai:gpt-4o-mini", "--base-url", model.baseUrl]);
    assert.equal(set.code, 0, set.stderr);
    const token = (await deskmate(data.dir, ["serve", "--print-token"], { env: { DESKMATE_API_TOKEN: "" } })).stdout.trim();
    const env = { ...process.env, DESKMATE_LLM_API_KEY: "sk-clients", DESKMATE_API_TOKEN: "" };
    delete env.DESKMATE_DATA_DIR;
    server = spawn(deskmateBinary(), ["--data-dir", data.dir, "serve", "--port", "0"], {
      env,
      stdio: ["ignore", "ignore", "pipe"],
    });
    const url = await new Promise((resolve, reject) => {
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
    client = new Client({ apiUrl: url, apiKey: token });
  });

  after(async () => {
    server?.kill();
    await model?.close();
    data?.remove();
  });

  async function collect(stream) {
    const parts = [];
    for await (const part of stream) parts.push(part);
    return parts;
  }

  const kinds = (values) => values.messages.map((m) => [m.type, m.content]);

  test("assistants, a streamed run, state, a second run, history, a background run", async () => {
    const [assistant] = await client.assistants.search();
    assert.equal(assistant.graph_id, "companion");

    const thread = await client.threads.create({ metadata: { suite: "clients" } });
    const tid = thread.thread_id;
    const parts = await collect(
      client.runs.stream(tid, "companion", {
        input: { messages: [{ role: "user", content: "你好" }] },
        streamMode: ["values", "updates", "messages-tuple"],
      }),
    );
    assert.equal(parts[0].event, "metadata");
    const runId = parts[0].data.run_id;
    const said = parts.filter((p) => p.event === "messages").map((p) => p.data[0].content).join("");
    assert.equal(said, "pong");
    const updates = parts.filter((p) => p.event === "updates").map((p) => Object.keys(p.data)[0]);
    assert.deepEqual(updates, ["agent"]);
    const values = parts.filter((p) => p.event === "values").map((p) => p.data);
    assert.deepEqual(kinds(values.at(-1)), [["human", "你好"], ["ai", "pong"]]);

    const state = await client.threads.getState(tid);
    assert.deepEqual(kinds(state.values), [["human", "你好"], ["ai", "pong"]]);
    assert.equal(state.checkpoint.checkpoint_id, runId);

    const second = await collect(
      client.runs.stream(tid, "companion", {
        input: { messages: [{ role: "user", content: "静夜思是什么意思？" }] },
        streamMode: "updates",
      }),
    );
    assert.deepEqual(
      second.filter((p) => p.event === "updates").map((p) => Object.keys(p.data)[0]),
      ["agent", "tools", "agent"],
    );
    const history = await client.threads.getHistory(tid);
    assert.deepEqual(history.map((h) => h.values.messages.length), [6, 2]);
    assert.deepEqual(history[0].values.todos, TODOS.todos);

    const run = await client.runs.create(tid, "companion", { input: { messages: [{ role: "user", content: "再见" }] } });
    const joined = await client.runs.join(tid, run.run_id);
    assert.deepEqual(kinds(joined).slice(-2), [["human", "再见"], ["ai", "pong"]]);
    assert.equal((await client.runs.get(tid, run.run_id)).status, "success");
  });

  test("an interrupt from the approval feature is resumed with a decision", async () => {
    const { thread_id: tid } = await client.threads.create();
    const paused = await collect(
      client.runs.stream(tid, "companion", {
        input: { messages: [{ role: "user", content: "静夜思是什么意思？" }] },
        streamMode: "values",
        context: { approvals: ["write_todos"] },
      }),
    );
    const last = paused.filter((p) => p.event === "values").at(-1).data;
    assert.equal(last.__interrupt__.length, 1);
    assert.equal(last.__interrupt__[0].value.tool, "write_todos");
    assert.equal((await client.threads.get(tid)).status, "interrupted");

    const resumed = await collect(
      client.runs.stream(tid, "companion", { command: { resume: { decision: "approve" } }, streamMode: "values" }),
    );
    const final = resumed.filter((p) => p.event === "values").at(-1).data;
    assert.equal(final.messages.at(-1).content, ANSWER);
    assert.deepEqual(final.todos, TODOS.todos);
    assert.equal((await client.threads.get(tid)).status, "idle");
  });
});
