import { describe, expect, it } from "vitest";
import type { AgUiEvent, ChatMessage, StoredToolCall, SubagentRunView } from "../api";
import type { LoadedThread } from "./reducer";
import {
  chatReducer,
  initialChatView,
  interruptsOf,
  itemsFromMessages,
  laneFromRun,
  type ChatAction,
  type ChatView,
} from "./reducer";

const ev = (event: AgUiEvent): ChatAction => ({ type: "event", event });
const run = (actions: ChatAction[], from: ChatView = initialChatView) => actions.reduce(chatReducer, from);

const START: AgUiEvent = { type: "RUN_STARTED", threadId: "th1", runId: "r1" };
const FINISH: AgUiEvent = { type: "RUN_FINISHED", threadId: "th1", runId: "r1" };

describe("chat reducer: AG-UI events → what the screen shows", () => {
  it("streams a text answer", () => {
    const v = run([
      { type: "user", id: "u1", text: "静夜思是谁写的？" },
      ev(START),
      ev({ type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" }),
      ev({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "是" }),
      ev({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "李白。" }),
    ]);
    expect(v.running).toBe(true);
    expect(v.threadId).toBe("th1");
    expect(v.runId).toBe("r1");
    expect(v.items).toEqual([
      { kind: "message", id: "u1", role: "user", text: "静夜思是谁写的？", streaming: false },
      { kind: "message", id: "m1", role: "assistant", text: "是李白。", streaming: true },
    ]);
    const done = run([ev({ type: "TEXT_MESSAGE_END", messageId: "m1" }), ev(FINISH)], v);
    expect(done.running).toBe(false);
    expect(done.items[1]).toMatchObject({ text: "是李白。", streaming: false });
  });

  it("follows two subagents in their own lanes while they work, and folds them in when done", () => {
    const lane = (call: string, agent: string, event: AgUiEvent): AgUiEvent => ({
      type: "CUSTOM",
      name: "subagent_event",
      value: { tool_call_id: call, subagent_type: agent, event },
    });
    const v = run([
      ev(START),
      ev({ type: "TOOL_CALL_START", toolCallId: "t1", toolCallName: "task" }),
      ev({ type: "TOOL_CALL_START", toolCallId: "t2", toolCallName: "task" }),
      ev({ type: "TOOL_CALL_END", toolCallId: "t1" }),
      ev({ type: "TOOL_CALL_END", toolCallId: "t2" }),
      ev(lane("t1", "math-tutor", { type: "RUN_STARTED", threadId: "th1", runId: "c1" })),
      ev(lane("t2", "poetry-tutor", { type: "RUN_STARTED", threadId: "th1", runId: "c2" })),
      ev(lane("t1", "math-tutor", { type: "TOOL_CALL_START", toolCallId: "m1", toolCallName: "write_file" })),
      ev(lane("t2", "poetry-tutor", { type: "TEXT_MESSAGE_CONTENT", messageId: "p", delta: "举头" })),
      ev(lane("t1", "math-tutor", { type: "TOOL_CALL_RESULT", messageId: "r", toolCallId: "m1", content: "ok" })),
      ev(lane("t2", "poetry-tutor", { type: "TEXT_MESSAGE_CONTENT", messageId: "p", delta: "望明月" })),
      // Not a lane event, and a lane event for no card: both ignored.
      ev({ type: "CUSTOM", name: "history_summarized", value: {} }),
      ev(lane("zz", "math-tutor", { type: "TEXT_MESSAGE_CONTENT", messageId: "x", delta: "?" })),
    ]);
    const [math, poem] = v.items;
    expect(math).toMatchObject({ kind: "tool", lane: { agent: "math-tutor", text: "", done: false, tools: [{ id: "m1", name: "write_file", status: "completed" }] } });
    expect(poem).toMatchObject({ kind: "tool", lane: { agent: "poetry-tutor", text: "举头望明月", done: false } });
    expect(v.items).toHaveLength(2);
    const done = run(
      [
        ev(lane("t2", "poetry-tutor", { type: "RUN_FINISHED", threadId: "th1", runId: "c2" })),
        ev({ type: "TOOL_CALL_RESULT", messageId: "r2", toolCallId: "t2", content: "抬头看月亮" }),
      ],
      v,
    );
    expect(done.items[1]).toMatchObject({ status: "completed", result: "抬头看月亮", lane: { done: true } });
  });

  it("builds a tool card from start, args, end and result; an Error result is an error", () => {
    const v = run([
      ev(START),
      ev({ type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "read_file" }),
      ev({ type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"path":' }),
      ev({ type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '"notes.md"}' }),
    ]);
    expect(v.items).toEqual([
      { kind: "tool", id: "c1", name: "read_file", args: '{"path":"notes.md"}', status: "pending", result: null, argsDone: false },
    ]);
    const ok = run(
      [ev({ type: "TOOL_CALL_END", toolCallId: "c1" }), ev({ type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: "# Notes" })],
      v,
    );
    expect(ok.items[0]).toMatchObject({ status: "completed", result: "# Notes", argsDone: true });
    const bad = run([ev({ type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: "Error: no such file" })], v);
    expect(bad.items[0]).toMatchObject({ status: "error" });
  });

  it("keeps the todo list from a snapshot and JSON-patch deltas", () => {
    const v = run([
      ev(START),
      ev({ type: "STATE_SNAPSHOT", snapshot: { todos: [{ content: "读题", status: "in_progress" }] } }),
      ev({
        type: "STATE_DELTA",
        delta: [
          {
            op: "replace",
            path: "/todos",
            value: [
              { content: "读题", status: "completed" },
              { content: "写答案", status: "pending" },
            ],
          },
        ],
      }),
      ev({ type: "STATE_DELTA", delta: [{ op: "replace", path: "/todos/1/status", value: "in_progress" }] }),
    ]);
    expect(v.todos).toEqual([
      { content: "读题", status: "completed" },
      { content: "写答案", status: "in_progress" },
    ]);
    // A patch that does not fit leaves the list as it was.
    expect(run([ev({ type: "STATE_DELTA", delta: [{ op: "remove", path: "/todos/9" }] })], v).todos).toEqual(v.todos);
  });

  it("RUN_ERROR stops the run with its message; unfinished tools and text are closed", () => {
    const v = run([
      ev(START),
      ev({ type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" }),
      ev({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "让我查" }),
      ev({ type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "web_search" }),
      ev({ type: "RUN_ERROR", message: "the model service refused the key", code: "llm" }),
    ]);
    expect(v.running).toBe(false);
    expect(v.error).toBe("the model service refused the key");
    expect(v.items.map((i) => (i.kind === "tool" ? i.status : i.streaming))).toEqual([false, "error"]);
  });

  it("tracks the current step and a send that failed", () => {
    let v = run([ev(START), ev({ type: "STEP_STARTED", stepName: "step 1" })]);
    expect(v.step).toBe("step 1");
    v = run([ev({ type: "STEP_FINISHED", stepName: "step 1" })], v);
    expect(v.step).toBeNull();
    const failed = run([{ type: "user", id: "u", text: "hi" }, { type: "failed", message: "no chat model is configured" }]);
    expect(failed.running).toBe(false);
    expect(failed.error).toBe("no chat model is configured");
    // An error that is only a notice leaves a running run running.
    const noticed = run([ev(START), { type: "error", message: "that answer has already finished" }]);
    expect(noticed.running).toBe(true);
    expect(noticed.error).toBe("that answer has already finished");
  });

  it("a fast run may finish before chat_send answers: running stays off", () => {
    const v = run([{ type: "user", id: "u", text: "hi" }, ev(START), ev(FINISH), { type: "sent", thread_id: "th1", run_id: "r1" }]);
    expect(v.running).toBe(false);
    expect(v.runId).toBe("r1");
  });

  it("loads a stored thread: text, tool cards with their results, todos; tool and system messages are not bubbles", () => {
    const view: LoadedThread = {
      thread: { id: "th1", title: "作业", profile_id: "c1", created_at: "", updated_at: "" },
      messages: [
        { id: "1", role: "system", content: "You are Deskmate", tool_calls: null, tool_call_id: null, is_error: false, created_at: "" },
        { id: "2", role: "user", content: "帮我查一下", tool_calls: null, tool_call_id: null, is_error: false, created_at: "" },
        {
          id: "3",
          role: "assistant",
          content: "",
          tool_calls: [
            { id: "c1", name: "ls", arguments: "{}" },
            { id: "c2", name: "read_file", arguments: '{"path":"x"}' },
          ],
          tool_call_id: null,
          is_error: false,
          created_at: "",
        },
        { id: "4", role: "tool", content: "a.md", tool_calls: null, tool_call_id: "c1", is_error: false, created_at: "" },
        { id: "5", role: "tool", content: "oops", tool_calls: null, tool_call_id: "c2", is_error: true, created_at: "" },
        { id: "6", role: "assistant", content: "找到了。", tool_calls: null, tool_call_id: null, is_error: false, created_at: "" },
      ],
      todos: [{ content: "查资料", status: "completed" }],
    };
    const v = run([{ type: "load", view }]);
    expect(v.threadId).toBe("th1");
    expect(v.running).toBe(false);
    expect(v.items.map((i) => (i.kind === "tool" ? `tool:${i.name}:${i.status}` : `${i.role}:${i.text}`))).toEqual([
      "user:帮我查一下",
      "tool:ls:completed",
      "tool:read_file:error",
      "assistant:找到了。",
    ]);
    expect(v.todos).toEqual([{ content: "查资料", status: "completed" }]);
    expect(itemsFromMessages([])).toEqual([]);

    // The shell's stored tool calls decide the status (an interrupted call is an error; its result shows).
    const withStored = run([
      {
        type: "load",
        view: {
          ...view,
          messages: view.messages.filter((m) => m.role !== "tool"),
          tool_calls: [
            { id: "c1", name: "ls", arguments: "{}", status: "completed", result: "a.md" },
            { id: "c2", name: "read_file", arguments: "{}", status: "interrupted", result: "Error: stopped" },
          ],
        },
      },
    ]);
    expect(withStored.items.filter((i) => i.kind === "tool").map((i) => i.kind === "tool" && [i.status, i.result])).toEqual([
      ["completed", "a.md"],
      ["error", "Error: stopped"],
    ]);
  });

  it("a reopened thread puts each subagent's stored run under its task card, as a lane", () => {
    const msg = (id: string, role: "user" | "assistant" | "tool", content: string, extra: Partial<ChatMessage> = {}): ChatMessage => ({
      id,
      role,
      content,
      tool_calls: null,
      tool_call_id: null,
      is_error: false,
      created_at: "",
      ...extra,
    });
    const call = (id: string, name: string, status: StoredToolCall["status"], result: string | null): StoredToolCall => ({
      id,
      message_id: "",
      run_id: null,
      name,
      arguments: "{}",
      status,
      result,
      started_at: "",
      finished_at: null,
    });
    const sub = (tool_call_id: string, subagent_type: string, messages: ChatMessage[], tool_calls: StoredToolCall[]): SubagentRunView => ({
      run_id: `run-${tool_call_id}`,
      subagent_type,
      tool_call_id,
      status: "completed",
      model: "openai:tutor",
      messages,
      tool_calls,
      model_calls: 2,
      input_tokens: 300,
      output_tokens: 30,
      cost_usd: 0,
    });
    const view: LoadedThread = {
      thread: { id: "th1", title: "作业", profile_id: "c1", created_at: "", updated_at: "" },
      messages: [
        msg("1", "user", "讲讲静夜思，再算一道题"),
        msg("2", "assistant", "", {
          tool_calls: [
            { id: "t1", name: "task", arguments: '{"subagent_type":"poetry-tutor"}' },
            { id: "t2", name: "task", arguments: '{"subagent_type":"math-tutor"}' },
          ],
        }),
        msg("3", "tool", "李白想家了。", { tool_call_id: "t1" }),
        msg("4", "tool", "答案是 8。", { tool_call_id: "t2" }),
        msg("5", "assistant", "都讲完啦。"),
      ],
      todos: [],
      subagents: [
        sub(
          "t1",
          "poetry-tutor",
          [
            msg("s1", "user", "讲讲静夜思"),
            msg("s2", "assistant", "我先读一下。", { tool_calls: [{ id: "r1", name: "read_file", arguments: "{}" }] }),
            msg("s3", "tool", "床前明月光", { tool_call_id: "r1" }),
            msg("s4", "assistant", "李白想家了。"),
          ],
          [call("r1", "read_file", "completed", "床前明月光")],
        ),
        sub("t2", "math-tutor", [msg("m1", "user", "3+5"), msg("m2", "assistant", "答案是 8。")], [call("g1", "grep", "interrupted", null)]),
      ],
    };
    const v = run([{ type: "load", view }]);
    const lanes = v.items.filter((i) => i.kind === "tool").map((i) => i.kind === "tool" && [i.id, i.lane]);
    expect(lanes).toEqual([
      [
        "t1",
        {
          agent: "poetry-tutor",
          text: "我先读一下。\n\n李白想家了。",
          tools: [{ id: "r1", name: "read_file", status: "completed" }],
          done: true,
        },
      ],
      ["t2", { agent: "math-tutor", text: "答案是 8。", tools: [{ id: "g1", name: "grep", status: "error" }], done: true }],
    ]);
    // Only the lead's text is a bubble: the subagents' stays in their lanes.
    expect(v.items.filter((i) => i.kind === "message").map((i) => i.kind === "message" && i.text)).toEqual([
      "讲讲静夜思，再算一道题",
      "都讲完啦。",
    ]);
    // A subagent still running when the thread was read is not done.
    expect(laneFromRun({ ...view.subagents![0], status: "running" }).done).toBe(false);
  });

  it("an interrupt leaves the held calls waiting for a parent, not failed", () => {
    const v = run([
      { type: "user", id: "u", text: "查一下" },
      { type: "event", event: { type: "RUN_STARTED", threadId: "t", runId: "r" } },
      { type: "event", event: { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "internet_search" } },
      { type: "event", event: { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"query":"恐龙"}' } },
      { type: "event", event: { type: "TOOL_CALL_END", toolCallId: "c1" } },
      {
        type: "event",
        event: {
          type: "RUN_FINISHED",
          threadId: "t",
          runId: "r",
          result: { status: "interrupted", outcome: "interrupt", interrupts: [{ id: "c1", tool: "internet_search", arguments: '{"query":"恐龙"}' }] },
        },
      },
    ]);
    expect(v.running).toBe(false);
    expect(v.approvals).toEqual([{ tool_call_id: "c1", run_id: "r", tool: "internet_search", arguments: '{"query":"恐龙"}', requested_at: "" }]);
    const card = v.items.find((i) => i.kind === "tool");
    expect(card && card.kind === "tool" && card.status).toBe("waiting");
    // An ordinary finish has no approvals.
    expect(interruptsOf({ status: "completed" }, "r")).toEqual([]);
  });

  it("a call held inside a subagent leaves the lead's task card waiting, not failed", () => {
    const v = run([
      { type: "user", id: "u", text: "写笔记" },
      { type: "event", event: { type: "RUN_STARTED", threadId: "t", runId: "r" } },
      { type: "event", event: { type: "TOOL_CALL_START", toolCallId: "t1", toolCallName: "task" } },
      { type: "event", event: { type: "TOOL_CALL_END", toolCallId: "t1" } },
      {
        type: "event",
        event: {
          type: "RUN_FINISHED",
          threadId: "t",
          runId: "r",
          result: {
            status: "interrupted",
            outcome: "interrupt",
            interrupts: [{ id: "w1", tool: "write_file", arguments: "{}", run_id: "child", task_call_id: "t1", subagent_type: "general-purpose" }],
          },
        },
      },
    ]);
    expect(v.approvals.map((a) => a.tool_call_id)).toEqual(["w1"]);
    const card = v.items.find((i) => i.kind === "tool");
    expect(card && card.kind === "tool" && card.status).toBe("waiting");
  });
});
