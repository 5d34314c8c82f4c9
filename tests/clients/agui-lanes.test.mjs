// The companion's team through AG-UI's official client library: the real
// `deskmate chat --events` runs a lead that hands two tasks to subagents in
// one reply, both subagents stream text and call a tool at the same time,
// and the recorded stream is checked by @ag-ui/client's `verifyEvents` (the
// lead's stream, and each subagent lane's own stream unwrapped from its
// CUSTOM `subagent_event`) and by @ag-ui/core's zod schemas; a client
// agent built on @ag-ui/client's AbstractAgent rebuilds the conversation
// from it. A broken copy of the same stream is rejected, so the checks can
// fail. The model is a scripted server on loopback (scripted-model.mjs).

import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { AbstractAgent, verifyEvents } from "@ag-ui/client";
import { EventSchema } from "@ag-ui/core/schemas";
import { from, lastValueFrom, toArray } from "rxjs";

import { chatEvents, chatRun, dataDir, deskmateBinary } from "./deskmate-cli.mjs";
import { startScriptedModel, text, toolCalls } from "./scripted-model.mjs";

/** The name of the CUSTOM events carrying a subagent's own events
 * (`SUBAGENT_EVENT` in crates/agent/src/tools/task.rs). */
const SUBAGENT_EVENT = "subagent_event";
/** How the lead's system prompt begins (agents/AGENTS.md). */
const LEAD_PROMPT = "You are 同桌 (Deskmate)";
const QUESTION = "请两位老师一起帮我：苹果一共几个？「举头望明月」是什么意思？";

/** The two subagent lanes the lead starts, keyed by their `task` call id. */
const LANES = {
  call_math: {
    type: "math-tutor",
    description: "二年级：3盘苹果，每盘4个，一共几个？讲清步骤。",
    marker: "3盘苹果",
    skill: "/skills/mental-arithmetic/SKILL.md",
    skillName: "mental-arithmetic",
    readId: "call_math_read",
    answer: "3×4=12，一共12个苹果。",
  },
  call_poem: {
    type: "poetry-tutor",
    description: "给二年级孩子讲「举头望明月」的意思。",
    marker: "举头望明月」的意思",
    skill: "/skills/poem-explanation/SKILL.md",
    skillName: "poem-explanation",
    readId: "call_poem_read",
    answer: "「举头望明月」就是抬起头看天上的月亮。",
  },
};
const LANE_IDS = Object.keys(LANES);

/**
 * Waits until every one of `names` has arrived (or `waitMs` passed), so the
 * two subagents are in their model calls at the same time and their lanes
 * must interleave — unless the app ran them one after the other, which the
 * test then reports instead of hanging.
 */
function meeting(names, waitMs) {
  const arrived = new Set();
  let open;
  const everyone = new Promise((resolve) => (open = resolve));
  const timer = setTimeout(() => open(), waitMs);
  timer.unref();
  return async (name) => {
    arrived.add(name);
    if (names.every((n) => arrived.has(n))) {
      clearTimeout(timer);
      open();
    }
    await everyone;
  };
}

/** The scripted model's reply to one request, read from its body. */
function teamScript() {
  const meet = meeting(LANE_IDS, 10_000);
  return async (body) => {
    const messages = body.messages ?? [];
    const system = messages[0]?.role === "system" ? String(messages[0].content) : "";
    const results = messages.filter((m) => m.role === "tool").map((m) => String(m.content));
    if (system.includes(LEAD_PROMPT)) {
      if (results.length === 0) {
        // Two `task` calls in one reply: the subagents run in parallel.
        return toolCalls(
          LANE_IDS.map((id) => [id, "task", { description: LANES[id].description, subagent_type: LANES[id].type }]),
          { before: "我请两位老师一起来帮忙。" },
        );
      }
      // Both answers, in the order the calls were made (the results may
      // come back in the order the subagents finished).
      const answers = LANE_IDS.map((id) => messages.find((m) => m.role === "tool" && m.tool_call_id === id)?.content);
      return text(`两位老师说：${answers.join(" ")}`, { pieces: 4 });
    }
    // A subagent: which one, by the task it was given.
    const asked = JSON.stringify(messages.filter((m) => m.role === "user"));
    const id = LANE_IDS.find((lane) => asked.includes(LANES[lane].marker));
    if (!id) throw new Error(`a model call from no known agent: ${asked.slice(0, 200)}`);
    const lane = LANES[id];
    if (results.length === 0) {
      await meet(id);
      return toolCalls([[lane.readId, "read_file", { file_path: lane.skill }]], {
        before: "我先看看方法。",
        pause: 40,
      });
    }
    return text(lane.answer, { pieces: 4, pause: 40 });
  };
}

// ---- checks -------------------------------------------------------------

const SCHEMA_BY_TYPE = new Map(EventSchema.options.map((schema) => [schema.shape.type.value, schema]));

/** Checks one event against @ag-ui/core's schema for its type: valid, and no
 * field the protocol does not describe (a client would strip it). */
function assertSchema(event, where) {
  const schema = SCHEMA_BY_TYPE.get(event.type);
  assert.ok(schema, `${where}: ${event.type} is not an AG-UI event type`);
  const parsed = schema.safeParse(event);
  assert.ok(parsed.success, `${where}: ${event.type} breaks @ag-ui/core's schema: ${parsed.error?.message}`);
  const unknown = Object.keys(event).filter((key) => !(key in schema.shape));
  assert.deepEqual(unknown, [], `${where}: ${event.type} has fields AG-UI does not know`);
}

/** Runs events through @ag-ui/client's verifyEvents; resolves to what came
 * out, rejects with the AGUIError the verifier raised. */
function verified(events) {
  return lastValueFrom(from(events).pipe(verifyEvents(false), toArray()));
}

/** Splits the lead's stream into its own events and each subagent lane's
 * (unwrapped), remembering where in the lead's stream each lane event was. */
function demultiplex(events) {
  const lead = [];
  const lanes = new Map();
  events.forEach((event, at) => {
    lead.push(event);
    if (event.type !== "CUSTOM" || event.name !== SUBAGENT_EVENT) return;
    const { tool_call_id: call, subagent_type: type, event: inner } = event.value ?? {};
    assert.equal(typeof call, "string", `event ${at}: a lane event without its tool_call_id`);
    assert.equal(typeof type, "string", `event ${at}: a lane event without its subagent_type`);
    assert.ok(inner && typeof inner === "object", `event ${at}: a lane event without its event`);
    if (!lanes.has(call)) lanes.set(call, { type, events: [], at: [] });
    const lane = lanes.get(call);
    assert.equal(lane.type, type, `event ${at}: lane ${call} changed its subagent type`);
    lane.events.push(inner);
    lane.at.push(at);
  });
  return { lead, lanes };
}

/** The project's lanes as AG-UI 1.0's own subagent events: a lane's
 * RUN_STARTED / RUN_FINISHED / RUN_ERROR become SUBAGENT_STARTED (naming the
 * `task` call) / SUBAGENT_FINISHED / SUBAGENT_ERROR and every other event is
 * tagged with the subagent's run id — one interleaved stream. */
function asNativeSubagents(events) {
  const { lanes } = demultiplex(events);
  return events.map((event) => {
    if (event.type !== "CUSTOM" || event.name !== SUBAGENT_EVENT) return event;
    const { tool_call_id: call, subagent_type: name, event: inner } = event.value;
    const subagentRunId = lanes.get(call).events[0].runId;
    switch (inner.type) {
      case "RUN_STARTED":
        return { type: "SUBAGENT_STARTED", subagentRunId, name, parentToolCallId: call };
      case "RUN_FINISHED":
        return { type: "SUBAGENT_FINISHED", subagentRunId, ...(inner.result !== undefined && { result: inner.result }) };
      case "RUN_ERROR":
        return { type: "SUBAGENT_ERROR", subagentRunId, message: inner.message };
      default:
        return { ...inner, subagentRunId };
    }
  });
}

/** A client agent of @ag-ui/client whose run replays recorded events. */
class RecordedAgent extends AbstractAgent {
  constructor(events) {
    super({ threadId: events[0]?.threadId });
    this.recorded = events;
  }
  run() {
    return from(this.recorded);
  }
}

// ---- the tests ----------------------------------------------------------

describe("the companion's team over AG-UI", { timeout: 120_000 }, () => {
  let model;
  let data;
  let events;

  before(async () => {
    deskmateBinary(); // says plainly what to build when there is no binary
    model = await startScriptedModel(teamScript());
    data = dataDir();
    events = await chatEvents(data.dir, model.baseUrl, QUESTION);
  });

  after(async () => {
    await model?.close();
    data?.remove();
  });

  test("two subagent lanes interleave and every stream passes verifyEvents", async () => {
    assert.equal(events[0]?.type, "RUN_STARTED", "the run starts with RUN_STARTED");
    assert.equal(events.at(-1)?.type, "RUN_FINISHED", "the run ends with RUN_FINISHED");

    // The lead's own stream, lanes included as CUSTOM events.
    events.forEach((event, i) => assertSchema(event, `lead event ${i}`));
    assert.equal((await verified(events)).length, events.length);

    // Each lane on its own, as a subagent's run.
    const { lanes } = demultiplex(events);
    assert.deepEqual([...lanes.keys()].sort(), [...LANE_IDS].sort(), "one lane per task call");
    for (const [call, lane] of lanes) {
      assert.equal(lane.type, LANES[call].type, `lane ${call} names its subagent`);
      lane.events.forEach((event, i) => assertSchema(event, `lane ${call} event ${i}`));
      assert.equal(lane.events[0].type, "RUN_STARTED", `lane ${call} starts its run`);
      assert.equal(lane.events.at(-1).type, "RUN_FINISHED", `lane ${call} finishes its run`);
      await assert.doesNotReject(verified(lane.events), `lane ${call} passes verifyEvents`);

      // It streamed text and called a tool whose result came back.
      const said = lane.events.filter((e) => e.type === "TEXT_MESSAGE_CONTENT").map((e) => e.delta).join("");
      assert.ok(said.includes(LANES[call].answer), `lane ${call} streamed its answer: ${said}`);
      const start = lane.events.find((e) => e.type === "TOOL_CALL_START");
      assert.equal(start?.toolCallName, "read_file", `lane ${call} called a tool`);
      const result = lane.events.find((e) => e.type === "TOOL_CALL_RESULT" && e.toolCallId === start.toolCallId);
      assert.ok(result?.content.includes(`name: ${LANES[call].skillName}`), `lane ${call} got the tool's result`);

      // The lead's `task` call gets the subagent's answer after its lane ended.
      const taskResult = events.findIndex((e) => e.type === "TOOL_CALL_RESULT" && e.toolCallId === call);
      assert.ok(taskResult > lane.at.at(-1), `task ${call} answered after its lane's last event`);
      assert.equal(events[taskResult].content, LANES[call].answer);
    }

    // The lanes really ran at the same time: each has events of the other
    // between its first and its last.
    const [a, b] = LANE_IDS.map((id) => lanes.get(id).at);
    const within = (inner, outer) => inner.some((at) => at > outer[0] && at < outer.at(-1));
    assert.ok(within(b, a) && within(a, b), `the lanes did not interleave: ${a} / ${b}`);

    // The lead answered with both results, in its last message.
    const lastMessage = events.filter((e) => e.type === "TEXT_MESSAGE_START").at(-1).messageId;
    const answer = events
      .filter((e) => e.type === "TEXT_MESSAGE_CONTENT" && e.messageId === lastMessage)
      .map((e) => e.delta)
      .join("");
    assert.equal(answer, `两位老师说：${LANES.call_math.answer} ${LANES.call_poem.answer}`);

    // The same lanes as AG-UI's native subagent events pass as one stream.
    const native = asNativeSubagents(events);
    native.forEach((event, i) => assertSchema(event, `native event ${i}`));
    await assert.doesNotReject(verified(native), "the lanes as native subagent events pass verifyEvents");
  });

  test("a client agent of @ag-ui/client rebuilds the conversation from the stream", async () => {
    const agent = new RecordedAgent(events);
    const finished = [];
    await agent.runAgent({}, { onRunFinishedEvent: ({ outcome }) => void finished.push(outcome) });
    assert.deepEqual(finished, ["success"]);
    const calls = agent.messages.flatMap((m) => m.toolCalls ?? []);
    assert.deepEqual(
      calls.map((c) => [c.id, c.function.name, JSON.parse(c.function.arguments).subagent_type]),
      LANE_IDS.map((id) => [id, "task", LANES[id].type]),
    );
    for (const id of LANE_IDS) {
      const result = agent.messages.find((m) => m.role === "tool" && m.toolCallId === id);
      assert.equal(result?.content, LANES[id].answer, `the tool message of ${id}`);
    }
    const last = agent.messages.at(-1);
    assert.equal(last.role, "assistant");
    assert.ok(last.content.startsWith("两位老师说："), last.content);
  });

  test("verifyEvents rejects a broken copy of the recorded stream", async () => {
    // The recorded stream passes, so each rejection below is the break's.
    await assert.doesNotReject(verified(events));
    const rejects = (broken, rule) => assert.rejects(verified(broken), rule);

    // Text streamed after its message ended.
    const content = events.findIndex((e) => e.type === "TEXT_MESSAGE_CONTENT");
    const end = events.findIndex((e, i) => i > content && e.type === "TEXT_MESSAGE_END" && e.messageId === events[content].messageId);
    const late = [...events];
    late.splice(end + 1, 0, { ...events[content], delta: "太晚了" });
    await rejects(late, /No active text message/);

    // Anything after RUN_FINISHED.
    await rejects([...events, { ...events[content], delta: "还有" }], /already finished/);

    // A second RUN_STARTED while the run is on.
    await rejects([events[0], ...events], /while a run is still active/);

    // Inside a lane: a tool call's arguments after its end.
    const { lanes } = demultiplex(events);
    const lane = [...lanes.get("call_math").events];
    const args = lane.findIndex((e) => e.type === "TOOL_CALL_ARGS");
    const callEnd = lane.findIndex((e) => e.type === "TOOL_CALL_END" && e.toolCallId === lane[args].toolCallId);
    lane.splice(callEnd + 1, 0, lane[args]);
    await rejects(lane, /No active tool call/);

    // And the schema check: a field under a name AG-UI does not use.
    const misspelled = { ...events[content], message_id: events[content].messageId };
    delete misspelled.messageId;
    assert.throws(() => assertSchema(misspelled, "misspelled"), /breaks @ag-ui\/core's schema/);
  });
});

describe("a run paused for a parent's approval over AG-UI", { timeout: 60_000 }, () => {
  let model;
  let data;
  let run;

  before(async () => {
    // The lead reads a file, and this child's reads wait for a parent.
    model = await startScriptedModel(async (body) => {
      const answered = (body.messages ?? []).some((m) => m.role === "tool");
      return answered
        ? text("读完了。")
        : toolCalls([["call_read", "read_file", { file_path: "/skills/mental-arithmetic/SKILL.md" }]]);
    });
    data = dataDir();
    run = await chatRun(data.dir, model.baseUrl, "看看口算的方法", ["--context", JSON.stringify({ approvals: ["read_file"] })]);
  });

  after(async () => {
    await model?.close();
    data?.remove();
  });

  test("RUN_FINISHED carries AG-UI's interrupt outcome, which a client agent turns into a pending interrupt", async () => {
    const { events } = run;
    assert.notEqual(run.code, 0, `a paused run does not exit as done:\n${run.stderr}`);
    assert.match(run.stderr, /waiting for a parent's approval: call_read read_file/);
    events.forEach((event, i) => assertSchema(event, `paused event ${i}`));
    assert.equal((await verified(events)).length, events.length);

    const finished = events.at(-1);
    assert.equal(finished.type, "RUN_FINISHED");
    assert.equal(finished.outcome?.type, "interrupt", JSON.stringify(finished));
    assert.deepEqual(
      finished.outcome.interrupts.map((i) => [i.id, i.toolCallId, i.reason]),
      [["call_read", "call_read", "tool_approval"]],
    );

    // @ag-ui/client reads it as a pause, not as a finished run.
    const agent = new RecordedAgent(events);
    const outcomes = [];
    await agent.runAgent({}, { onRunFinishedEvent: ({ outcome }) => void outcomes.push(outcome) });
    assert.deepEqual(outcomes, ["interrupt"]);
    assert.deepEqual(
      agent.pendingInterrupts.map((i) => i.id),
      ["call_read"],
    );
  });
});
