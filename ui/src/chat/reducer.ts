/**
 * The chat screen's visible state as a pure reducer over AG-UI events
 * (`crates/agent/src/events.rs`) and the screen's own actions.
 */
import type {
  AgUiEvent,
  ChatMessage,
  PendingApproval,
  RunSummary,
  StoredToolCall,
  SubagentRunView,
  ThreadView,
  Todo,
  TodoStatus,
} from "../api";
import { applyPatch } from "./jsonPatch";

/** `waiting`: held for a parent's approval. */
export type ToolStatus = "pending" | "completed" | "error" | "waiting";

/** What the tool cards need of a stored tool call. */
export type ToolCallSummary = Pick<StoredToolCall, "id" | "name" | "arguments" | "result"> & { status: string };

/** A stored thread as the chat screen loads it (the shell's `ThreadView`). */
export type LoadedThread = Omit<ThreadView, "tool_calls" | "runs" | "approvals" | "subagents"> & {
  tool_calls?: ToolCallSummary[];
  runs?: RunSummary[];
  approvals?: PendingApproval[];
  subagents?: SubagentRunView[];
};

/** A subagent working for a `task` call: its text and tool calls as they stream. */
export interface Lane {
  agent: string;
  text: string;
  tools: { id: string; name: string; status: ToolStatus }[];
  done: boolean;
}

export type ChatItem =
  | { kind: "message"; id: string; role: "user" | "assistant" | "system"; text: string; streaming: boolean }
  | {
      kind: "tool";
      id: string;
      name: string;
      args: string;
      status: ToolStatus;
      result: string | null;
      argsDone: boolean;
      /** Set while (and after) a subagent works for this `task` call. */
      lane?: Lane;
    };

/** The CUSTOM event carrying a subagent's own event (`SUBAGENT_EVENT` in the agent crate). */
export const SUBAGENT_EVENT = "subagent_event";

/** One subagent event applied to its lane. */
export function onLaneEvent(lane: Lane, ev: AgUiEvent): Lane {
  switch (ev.type) {
    case "TEXT_MESSAGE_CONTENT":
      return { ...lane, text: lane.text + ev.delta };
    case "TOOL_CALL_START":
      return lane.tools.some((c) => c.id === ev.toolCallId)
        ? lane
        : { ...lane, tools: [...lane.tools, { id: ev.toolCallId, name: ev.toolCallName, status: "pending" }] };
    case "TOOL_CALL_RESULT":
      return {
        ...lane,
        tools: lane.tools.map((c) => (c.id === ev.toolCallId ? { ...c, status: resultStatus(ev.content) } : c)),
      };
    case "RUN_FINISHED":
    case "RUN_ERROR":
      return { ...lane, done: true };
    default:
      return lane;
  }
}

export interface ChatView {
  threadId: string | null;
  /** The run in progress (or last started). */
  runId: string | null;
  running: boolean;
  items: ChatItem[];
  /** The thread state (`{ todos }`), kept whole so JSON patches apply to it. */
  state: Record<string, unknown>;
  todos: Todo[];
  /** The step the agent is on, while running. */
  step: string | null;
  /** A RUN_ERROR message or a failed send, in plain words. */
  error: string | null;
  /** The loaded thread's runs with their usage (a parent sees the total). */
  runs: RunSummary[];
  /** Tool calls the last run paused on, waiting for a parent. */
  approvals: PendingApproval[];
}

export type ChatAction =
  | { type: "reset" }
  | { type: "load"; view: LoadedThread }
  | { type: "user"; id: string; text: string }
  /** Continuing an interrupted run: no new message, the run goes on. */
  | { type: "resuming" }
  /** The thread's runs read again after a run ended (their usage grew, a call may wait). */
  | { type: "runs"; threadId: string; runs: RunSummary[]; approvals: PendingApproval[] }
  | { type: "sent"; thread_id: string; run_id: string }
  | { type: "failed"; message: string }
  /** An error to show that does not end the run (e.g. Stop could not be delivered). */
  | { type: "error"; message: string }
  | { type: "event"; event: AgUiEvent };

export const initialChatView: ChatView = {
  threadId: null,
  runId: null,
  running: false,
  items: [],
  state: {},
  todos: [],
  step: null,
  error: null,
  runs: [],
  approvals: [],
};

const TODO_STATUSES: TodoStatus[] = ["pending", "in_progress", "completed"];

/** The todos in a thread state, keeping only well-formed ones. */
export function todosOf(state: unknown): Todo[] {
  const list = state && typeof state === "object" ? (state as { todos?: unknown }).todos : undefined;
  if (!Array.isArray(list)) return [];
  return list
    .filter((t): t is { content: unknown; status: unknown } => !!t && typeof t === "object")
    .map((t) => ({
      content: typeof t.content === "string" ? t.content : String(t.content ?? ""),
      status: TODO_STATUSES.includes(t.status as TodoStatus) ? (t.status as TodoStatus) : "pending",
    }));
}

/** Tool results that failed start with "Error" (see `ToolOutput::error` in the agent crate). */
export function resultStatus(content: string, isError?: boolean): ToolStatus {
  return isError || /^error\b/i.test(content.trim()) ? "error" : "completed";
}

/** A stored tool call's status as a card shows it (an interrupted call did not complete: an error). */
function storedStatus(status: string): ToolStatus | null {
  if (status === "completed") return "completed";
  if (status === "error" || status === "interrupted") return "error";
  if (status === "pending") return "pending";
  return null;
}

/**
 * The visible items of a stored thread: user and assistant text, a card per
 * tool call with its result. `stored` (the thread's tool calls with their
 * status), when given, is the authority on each card's status and result.
 */
export function itemsFromMessages(messages: ChatMessage[], stored: ToolCallSummary[] = []): ChatItem[] {
  const items: ChatItem[] = [];
  const tools = new Map<string, Extract<ChatItem, { kind: "tool" }>>();
  for (const m of messages) {
    if (m.role === "tool") {
      const card = m.tool_call_id ? tools.get(m.tool_call_id) : undefined;
      if (card) {
        card.result = m.content;
        card.status = resultStatus(m.content, m.is_error);
      }
      continue;
    }
    if (m.role === "system") continue;
    if (m.content.trim()) {
      items.push({ kind: "message", id: m.id, role: m.role, text: m.content, streaming: false });
    }
    for (const c of m.tool_calls ?? []) {
      const card: Extract<ChatItem, { kind: "tool" }> = {
        kind: "tool",
        id: c.id,
        name: c.name,
        args: c.arguments,
        status: "pending",
        result: null,
        argsDone: true,
      };
      tools.set(c.id, card);
      items.push(card);
    }
  }
  for (const c of stored) {
    const card = tools.get(c.id);
    const status = storedStatus(c.status);
    if (!card || !status) continue;
    card.status = status;
    if (c.result !== null && c.result !== undefined) card.result = c.result;
  }
  return items;
}

/**
 * A stored subagent run as the lane it was while it worked: its replies'
 * text and its tool calls with their stored status. `done` unless the run is
 * still going.
 */
export function laneFromRun(run: SubagentRunView): Lane {
  const text = run.messages
    .filter((m) => m.role === "assistant" && m.content.trim())
    .map((m) => m.content)
    .join("\n\n");
  const tools = run.tool_calls.map((c) => ({ id: c.id, name: c.name, status: storedStatus(c.status) ?? "error" }));
  return { agent: run.subagent_type, text, tools, done: run.status !== "running" };
}

/** Puts each stored subagent run under the `task` card that started it. */
export function withStoredLanes(items: ChatItem[], runs: SubagentRunView[]): ChatItem[] {
  if (runs.length === 0) return items;
  const byCall = new Map(runs.map((r) => [r.tool_call_id, r]));
  return items.map((it) => {
    const run = it.kind === "tool" ? byCall.get(it.id) : undefined;
    return run && it.kind === "tool" ? { ...it, lane: laneFromRun(run) } : it;
  });
}

function updateItem(view: ChatView, id: string, kind: ChatItem["kind"], f: (item: ChatItem) => ChatItem): ChatView {
  let found = false;
  const items = view.items.map((it) => {
    if (it.kind === kind && it.id === id) {
      found = true;
      return f(it);
    }
    return it;
  });
  return found ? { ...view, items } : view;
}

/** The calls an AG-UI interrupt (RUN_FINISHED with `outcome: "interrupt"`) waits on. */
export function interruptsOf(result: unknown, runId: string): PendingApproval[] {
  if (!result || typeof result !== "object") return [];
  const r = result as { outcome?: unknown; interrupts?: unknown };
  if (r.outcome !== "interrupt" || !Array.isArray(r.interrupts)) return [];
  return r.interrupts
    .filter((i): i is { id: string; tool: string; arguments?: unknown } => !!i && typeof i.id === "string" && typeof i.tool === "string")
    .map((i) => ({
      tool_call_id: i.id,
      run_id: runId,
      tool: i.tool,
      arguments: typeof i.arguments === "string" ? i.arguments : JSON.stringify(i.arguments ?? {}),
      requested_at: "",
    }));
}

/** The `task` calls an interrupt waits on: a subagent of theirs holds a call for a parent. */
export function waitingTaskCalls(result: unknown): string[] {
  if (!result || typeof result !== "object") return [];
  const r = result as { outcome?: unknown; interrupts?: unknown };
  if (r.outcome !== "interrupt" || !Array.isArray(r.interrupts)) return [];
  return r.interrupts
    .map((i) => (i && typeof i === "object" ? (i as { task_call_id?: unknown }).task_call_id : undefined))
    .filter((id): id is string => typeof id === "string");
}

function endRun(view: ChatView): ChatItem[] {
  return view.items.map((it) =>
    it.kind === "message" && it.streaming
      ? { ...it, streaming: false }
      : it.kind === "tool" && it.status === "pending"
        ? { ...it, status: "error" as ToolStatus }
        : it,
  );
}

function onEvent(view: ChatView, ev: AgUiEvent): ChatView {
  switch (ev.type) {
    case "RUN_STARTED":
      return { ...view, threadId: ev.threadId || view.threadId, runId: ev.runId, running: true, error: null, step: null };
    case "RUN_FINISHED": {
      // An interrupt: the run waits for a parent on these calls (they stay pending).
      const waiting = interruptsOf(ev.result, ev.runId);
      if (waiting.length > 0) {
        // A call inside a subagent also leaves its `task` card waiting.
        const held = new Set([...waiting.map((a) => a.tool_call_id), ...waitingTaskCalls(ev.result)]);
        const items = endRun({ ...view, items: view.items.map((it) => (it.kind === "tool" && held.has(it.id) ? { ...it, status: "waiting" as ToolStatus } : it)) });
        return { ...view, running: false, step: null, items, approvals: waiting };
      }
      return { ...view, running: false, step: null, items: endRun(view) };
    }
    case "RUN_ERROR":
      return { ...view, running: false, step: null, error: ev.message || "?", items: endRun(view) };
    case "STEP_STARTED":
      return { ...view, step: ev.stepName };
    case "STEP_FINISHED":
      return view.step === ev.stepName ? { ...view, step: null } : view;
    case "TEXT_MESSAGE_START": {
      if (view.items.some((it) => it.kind === "message" && it.id === ev.messageId)) return view;
      const role = ev.role === "user" || ev.role === "system" ? ev.role : "assistant";
      return { ...view, items: [...view.items, { kind: "message", id: ev.messageId, role, text: "", streaming: true }] };
    }
    case "TEXT_MESSAGE_CONTENT": {
      const next = updateItem(view, ev.messageId, "message", (it) =>
        it.kind === "message" ? { ...it, text: it.text + ev.delta } : it,
      );
      if (next !== view) return next;
      // Content without a start: show it all the same.
      return {
        ...view,
        items: [...view.items, { kind: "message", id: ev.messageId, role: "assistant", text: ev.delta, streaming: true }],
      };
    }
    case "TEXT_MESSAGE_END":
      return updateItem(view, ev.messageId, "message", (it) => (it.kind === "message" ? { ...it, streaming: false } : it));
    case "TOOL_CALL_START":
      if (view.items.some((it) => it.kind === "tool" && it.id === ev.toolCallId)) return view;
      return {
        ...view,
        items: [
          ...view.items,
          { kind: "tool", id: ev.toolCallId, name: ev.toolCallName, args: "", status: "pending", result: null, argsDone: false },
        ],
      };
    case "TOOL_CALL_ARGS":
      return updateItem(view, ev.toolCallId, "tool", (it) => (it.kind === "tool" ? { ...it, args: it.args + ev.delta } : it));
    case "TOOL_CALL_END":
      return updateItem(view, ev.toolCallId, "tool", (it) => (it.kind === "tool" ? { ...it, argsDone: true } : it));
    case "TOOL_CALL_RESULT":
      return updateItem(view, ev.toolCallId, "tool", (it) =>
        it.kind === "tool" ? { ...it, result: ev.content, status: resultStatus(ev.content) } : it,
      );
    case "STATE_SNAPSHOT": {
      const state = ev.snapshot && typeof ev.snapshot === "object" ? (ev.snapshot as Record<string, unknown>) : {};
      return { ...view, state, todos: todosOf(state) };
    }
    case "STATE_DELTA": {
      try {
        const state = applyPatch(view.state, ev.delta ?? []);
        return { ...view, state, todos: todosOf(state) };
      } catch {
        // A patch that does not fit our copy: keep the last good state.
        return view;
      }
    }
    case "CUSTOM": {
      if (ev.name !== SUBAGENT_EVENT || !ev.value || typeof ev.value !== "object") return view;
      const v = ev.value as { tool_call_id?: unknown; subagent_type?: unknown; event?: unknown };
      if (typeof v.tool_call_id !== "string" || !v.event || typeof v.event !== "object") return view;
      const inner = v.event as AgUiEvent;
      const agent = typeof v.subagent_type === "string" ? v.subagent_type : "";
      return updateItem(view, v.tool_call_id, "tool", (it) =>
        it.kind === "tool"
          ? { ...it, lane: onLaneEvent(it.lane ?? { agent, text: "", tools: [], done: false }, inner) }
          : it,
      );
    }
    default:
      return view;
  }
}

/** The thread's last run, when a crash cut it off and it can be continued. */
export function resumableRun(view: ChatView): RunSummary | null {
  const last = view.runs[view.runs.length - 1];
  return !view.running && view.approvals.length === 0 && last?.status === "interrupted" ? last : null;
}

/** What the thread's runs cost together (subagents included). */
export function threadUsage(runs: RunSummary[]) {
  return runs.reduce(
    (sum, r) => ({
      calls: sum.calls + r.model_calls,
      input: sum.input + r.input_tokens,
      output: sum.output + r.output_tokens,
      cost: sum.cost + r.cost_usd,
    }),
    { calls: 0, input: 0, output: 0, cost: 0 },
  );
}

export function chatReducer(view: ChatView, action: ChatAction): ChatView {
  switch (action.type) {
    case "reset":
      return initialChatView;
    case "load":
      return {
        ...initialChatView,
        threadId: action.view.thread?.id ?? null,
        items: withStoredLanes(
          itemsFromMessages(action.view.messages ?? [], action.view.tool_calls ?? []),
          action.view.subagents ?? [],
        ),
        state: { todos: action.view.todos ?? [] },
        todos: todosOf({ todos: action.view.todos ?? [] }),
        runs: action.view.runs ?? [],
        approvals: action.view.approvals ?? [],
      };
    case "user":
      return {
        ...view,
        error: null,
        running: true,
        items: [...view.items, { kind: "message", id: action.id, role: "user", text: action.text, streaming: false }],
      };
    case "resuming":
      // The interrupted run is the one going on again: it is no longer resumable.
      return {
        ...view,
        error: null,
        running: true,
        approvals: [],
        runs: view.runs.map((r) => (r.status === "interrupted" ? { ...r, status: "running" } : r)),
      };
    case "runs":
      // Only for the thread still shown, and not while another run goes on.
      return view.threadId === action.threadId && !view.running
        ? { ...view, runs: action.runs, approvals: action.approvals }
        : view;
    case "sent":
      // RUN_FINISHED may already have arrived (a fast run): keep `running` as the events left it.
      return { ...view, threadId: action.thread_id, runId: action.run_id };
    case "failed":
      return { ...view, running: false, error: action.message, items: endRun(view) };
    case "error":
      return { ...view, error: action.message };
    case "event":
      return onEvent(view, action.event);
  }
}
