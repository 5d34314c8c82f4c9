import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import type { AgUiEvent, RunSummary, ThreadSummary } from "../../api";
import { profile, renderWithI18n } from "../../test/helpers";
import { ChatScreen } from "./ChatScreen";
import { NOTICE_NONE, NOTICE_AGREED } from "../../test/samples";

vi.mock("../../api");

const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const ming = profile({ id: "c1", kind: "child", name: "小明", grade: 2 });
const thread = (id: string, title: string): ThreadSummary => ({
  id,
  title,
  profile_id: "c1",
  created_at: "2026-03-01T00:00:00Z",
  updated_at: "2026-03-02T00:00:00Z",
});

const run = (id: string, status: RunSummary["status"], model_calls = 1, cost_usd = 0): RunSummary => ({
  id,
  status,
  model: "openai:gpt-4o-mini",
  model_calls,
  input_tokens: 100 * model_calls,
  output_tokens: 20 * model_calls,
  cost_usd,
  subagent_runs: 0,
  started_at: "2026-03-02T00:00:00Z",
});

/** The onEvent callback of the last chat_send; pushes events as the Channel would. */
function stream() {
  const calls = vi.mocked(api.chatSend).mock.calls;
  const onEvent = calls[calls.length - 1][3];
  return (...events: AgUiEvent[]) => act(() => events.forEach((e) => onEvent(e)));
}

describe("chat", () => {
  beforeEach(() => {
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: "openai:gpt-4o-mini", base_url: null, has_key: true, notice: NOTICE_AGREED });
    vi.mocked(api.chatThreads).mockResolvedValue([thread("th0", "古诗作业")]);
    vi.mocked(api.chatSend).mockResolvedValue({ thread_id: "th1", run_id: "r1" });
    vi.mocked(api.chatCancel).mockResolvedValue(null);
  });

  it("a parent can hand a message to the team in supervisor mode: each hand-off shows, its reply streams, nothing is kept", async () => {
    vi.mocked(api.chatSupervise).mockResolvedValue({ thread_id: "", run_id: "sr1" });
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={mum} onBack={vi.fn()} />);
    await screen.findByTestId("thread-item");
    expect(screen.getByTestId("chat-mode-agent")).toHaveAttribute("aria-pressed", "true");
    await user.click(screen.getByTestId("chat-mode-supervisor"));
    expect(screen.getByTestId("chat-mode-supervisor")).toHaveAttribute("aria-pressed", "true");
    await user.type(screen.getByTestId("chat-input"), "讲讲静夜思");
    await user.click(screen.getByTestId("chat-send"));
    expect(api.chatSupervise).toHaveBeenCalledWith("讲讲静夜思", expect.any(Function));
    expect(api.chatSend).not.toHaveBeenCalled();
    const onEvent = vi.mocked(api.chatSupervise).mock.calls[0][1];
    act(() => {
      onEvent({ type: "RUN_STARTED", threadId: "", runId: "sr1" });
      onEvent({ type: "STEP_STARTED", stepName: "poetry-tutor" });
    });
    expect(screen.getByTestId("chat-screen")).toHaveTextContent("poetry-tutor");
    act(() => {
      onEvent({ type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" });
      onEvent({ type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "《静夜思》写的是想家。" });
      onEvent({ type: "TEXT_MESSAGE_END", messageId: "m1" });
      onEvent({ type: "STEP_FINISHED", stepName: "poetry-tutor" });
      onEvent({ type: "RUN_FINISHED", threadId: "", runId: "sr1", result: { ending: "done", rounds: 1 } });
    });
    expect(screen.getByTestId("chat-screen")).toHaveTextContent("《静夜思》写的是想家。");
    expect(screen.getByTestId("chat-send")).toBeInTheDocument();
  });

  it("a child's chat has no supervisor mode (its replies go through the safety check)", async () => {
    renderWithI18n(<ChatScreen profile={ming} onBack={vi.fn()} />);
    await screen.findByTestId("thread-item");
    expect(screen.queryByTestId("chat-mode-supervisor")).toBeNull();
  });

  it("sends a message and streams the answer, tool cards and todos", async () => {
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={ming} onBack={vi.fn()} />);
    expect(screen.getByTestId("chat-screen")).toBeInTheDocument();
    expect(await screen.findByTestId("thread-item")).toHaveTextContent("古诗作业");
    expect(api.chatThreads).toHaveBeenCalledWith("c1");

    await user.type(screen.getByTestId("chat-input"), "静夜思是什么意思？");
    await user.click(screen.getByTestId("chat-send"));
    expect(api.chatSend).toHaveBeenCalledWith(null, "c1", "静夜思是什么意思？", expect.any(Function));
    expect(screen.getByTestId("chat-input")).toHaveValue("");
    expect(screen.getByTestId("user-message")).toHaveTextContent("静夜思是什么意思？");

    const push = stream();
    push(
      { type: "RUN_STARTED", threadId: "th1", runId: "r1" },
      { type: "STATE_SNAPSHOT", snapshot: { todos: [{ content: "查诗意", status: "in_progress" }] } },
      { type: "TOOL_CALL_START", toolCallId: "c1", toolCallName: "read_file" },
      { type: "TOOL_CALL_ARGS", toolCallId: "c1", delta: '{"path":"poems/jingyesi.md"}' },
      { type: "TOOL_CALL_END", toolCallId: "c1" },
    );
    expect(screen.getByTestId("chat-stop")).toBeInTheDocument();
    expect(screen.queryByTestId("chat-send")).not.toBeInTheDocument();
    const card = screen.getByTestId("tool-card");
    expect(card).toHaveAttribute("data-status", "pending");
    expect(card).toHaveTextContent("read_file");
    expect(screen.getByTestId("todo-item")).toHaveAttribute("data-status", "in_progress");

    push(
      { type: "TOOL_CALL_RESULT", messageId: "t1", toolCallId: "c1", content: "床前明月光：月光照在床前" },
      { type: "STATE_DELTA", delta: [{ op: "replace", path: "/todos/0/status", value: "completed" }] },
      { type: "TEXT_MESSAGE_START", messageId: "m1", role: "assistant" },
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "这首诗写的是" },
    );
    expect(screen.getByTestId("tool-card")).toHaveAttribute("data-status", "completed");
    expect(screen.getByTestId("tool-card")).toHaveTextContent("床前明月光：月光照在床前");
    expect(screen.getByTestId("todo-item")).toHaveAttribute("data-status", "completed");
    expect(screen.getByTestId("assistant-message")).toHaveTextContent("这首诗写的是");

    // The card expands to the arguments and the whole result.
    await user.click(within(screen.getByTestId("tool-card")).getByRole("button"));
    expect(screen.getByTestId("tool-card")).toHaveTextContent('"path": "poems/jingyesi.md"');

    vi.mocked(api.chatThreads).mockResolvedValue([thread("th1", "静夜思的意思"), thread("th0", "古诗作业")]);
    push(
      { type: "TEXT_MESSAGE_CONTENT", messageId: "m1", delta: "思念家乡。" },
      { type: "TEXT_MESSAGE_END", messageId: "m1" },
      { type: "RUN_FINISHED", threadId: "th1", runId: "r1" },
    );
    expect(screen.getByTestId("assistant-message")).toHaveTextContent("这首诗写的是思念家乡。");
    expect(screen.getByTestId("chat-send")).toBeInTheDocument();
    // The list is read again: the new thread shows up, marked as the current one.
    await waitFor(() => expect(screen.getAllByTestId("thread-item")).toHaveLength(2));
    expect(screen.getAllByTestId("thread-item")[0]).toHaveAttribute("aria-current", "true");

    // The next message continues the same thread.
    await user.type(screen.getByTestId("chat-input"), "谢谢{Enter}");
    expect(api.chatSend).toHaveBeenLastCalledWith("th1", "c1", "谢谢", expect.any(Function));
  });

  it("Stop cancels the run; the run's error is shown in plain words", async () => {
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={mum} onBack={vi.fn()} />);
    await user.type(screen.getByTestId("chat-input"), "帮我出一份练习");
    await user.click(screen.getByTestId("chat-send"));
    const push = stream();
    push({ type: "RUN_STARTED", threadId: "th1", runId: "r1" });
    await user.click(screen.getByTestId("chat-stop"));
    expect(api.chatCancel).toHaveBeenCalledWith("r1");
    push({ type: "RUN_ERROR", message: "stopped: the user stopped the run" });
    expect(screen.getByTestId("chat-error")).toHaveTextContent("stopped: the user stopped the run");
    expect(screen.queryByTestId("chat-stop")).not.toBeInTheDocument();
  });

  it("shows chat_send's rejection", async () => {
    vi.mocked(api.chatSend).mockRejectedValue("the model service could not be reached");
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={mum} onBack={vi.fn()} />);
    await user.type(screen.getByTestId("chat-input"), "hi");
    await user.click(screen.getByTestId("chat-send"));
    expect(await screen.findByTestId("chat-error")).toHaveTextContent("the model service could not be reached");
    expect(screen.getByTestId("chat-send")).toBeInTheDocument();
  });

  it("opens a stored thread", async () => {
    vi.mocked(api.chatThread).mockResolvedValue({
      thread: thread("th0", "古诗作业"),
      messages: [
        { id: "1", role: "user", content: "你好", tool_calls: null, tool_call_id: null, is_error: false, created_at: "" },
        { id: "2", role: "assistant", content: "你好呀！", tool_calls: null, tool_call_id: null, is_error: false, created_at: "" },
      ],
      todos: [{ content: "背静夜思", status: "pending" }],
      tool_calls: [],
      runs: [run("r0", "completed")],
      approvals: [],
      subagents: [],
    });
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={ming} onBack={vi.fn()} />);
    await user.click(await screen.findByTestId("thread-item"));
    expect(api.chatThread).toHaveBeenCalledWith("th0");
    expect(await screen.findByTestId("assistant-message")).toHaveTextContent("你好呀！");
    expect(screen.getByTestId("todo-item")).toHaveAttribute("data-status", "pending");
    expect(screen.getByTestId("thread-item")).toHaveAttribute("aria-current", "true");
    // A child does not see what the thread cost; nothing was cut off.
    expect(screen.queryByTestId("chat-usage")).not.toBeInTheDocument();
    expect(screen.queryByTestId("chat-continue")).not.toBeInTheDocument();
  });

  it("a reopened thread shows each subagent's work folded under its task card", async () => {
    const m = (id: string, role: "user" | "assistant" | "tool", content: string, extra = {}) => ({
      id,
      role,
      content,
      tool_calls: null,
      tool_call_id: null,
      is_error: false,
      created_at: "",
      ...extra,
    });
    vi.mocked(api.chatThread).mockResolvedValue({
      thread: thread("th0", "古诗作业"),
      messages: [
        m("1", "user", "讲讲静夜思"),
        m("2", "assistant", "", { tool_calls: [{ id: "t1", name: "task", arguments: '{"subagent_type":"poetry-tutor"}' }] }),
        m("3", "tool", "李白想家了。", { tool_call_id: "t1" }),
        m("4", "assistant", "讲完啦。"),
      ],
      todos: [],
      tool_calls: [],
      runs: [run("r0", "completed")],
      approvals: [],
      subagents: [
        {
          run_id: "sub1",
          subagent_type: "poetry-tutor",
          tool_call_id: "t1",
          status: "completed",
          model: "openai:gpt-4o-mini",
          messages: [
            m("s1", "user", "讲讲静夜思"),
            m("s2", "assistant", "我先读一下这首诗。", { tool_calls: [{ id: "r1", name: "read_file", arguments: "{}" }] }),
            m("s3", "tool", "床前明月光", { tool_call_id: "r1" }),
            m("s4", "assistant", "李白看见月光，想起了家乡。"),
          ],
          tool_calls: [
            {
              id: "r1",
              message_id: "s2",
              run_id: "sub1",
              name: "read_file",
              arguments: "{}",
              status: "completed",
              result: "床前明月光",
              started_at: "",
              finished_at: null,
            },
          ],
          model_calls: 2,
          input_tokens: 300,
          output_tokens: 30,
          cost_usd: 0,
        },
      ],
    });
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={ming} onBack={vi.fn()} />);
    await user.click(await screen.findByTestId("thread-item"));
    const card = await screen.findByTestId("tool-card");
    expect(card).toHaveAttribute("data-name", "task");
    // Folded: the card shows its result, not the subagent's lane.
    expect(within(card).queryByTestId("subagent-lane")).not.toBeInTheDocument();
    expect(card).toHaveTextContent("李白想家了。");
    await user.click(within(card).getByRole("button"));
    const lane = within(card).getByTestId("subagent-lane");
    expect(lane).toHaveAttribute("data-agent", "poetry-tutor");
    expect(lane).toHaveAttribute("data-done", "true");
    // A finished lane says what the subagent did, not that it is still at work.
    expect(lane).toHaveTextContent("poetry-tutor 帮忙做了这些");
    expect(lane).not.toHaveTextContent("正在帮忙");
    expect(lane).toHaveTextContent("李白看见月光，想起了家乡。");
    const tool = within(lane).getByTestId("subagent-tool");
    expect(tool).toHaveTextContent("read_file");
    expect(tool).toHaveClass("tool-tag-completed");
    // The subagent's text is in its lane, not a bubble of the lead's.
    expect(screen.getAllByTestId("assistant-message").map((b) => b.textContent)).toEqual(["讲完啦。"]);
  });

  it("a thread whose last answer a crash cut off can be continued; a parent sees what it cost", async () => {
    vi.mocked(api.chatThread).mockResolvedValue({
      thread: thread("th0", "古诗作业"),
      messages: [{ id: "1", role: "user", content: "讲讲静夜思", tool_calls: null, tool_call_id: null, is_error: false, created_at: "" }],
      todos: [],
      tool_calls: [],
      runs: [run("r0", "completed", 2, 0.0012), run("r9", "interrupted", 1, 0.0003)],
      approvals: [],
      subagents: [],
    });
    vi.mocked(api.chatResume).mockResolvedValue({ thread_id: "th0", run_id: "r9" });
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={mum} onBack={vi.fn()} />);
    await user.click(await screen.findByTestId("thread-item"));
    expect(await screen.findByTestId("chat-usage")).toHaveTextContent("3 次模型调用：输入 300、输出 60 个 token，约 $0.0015");
    expect(screen.getByTestId("chat-interrupted")).toBeInTheDocument();
    await user.click(screen.getByTestId("chat-continue"));
    expect(api.chatResume).toHaveBeenCalledWith("r9", expect.any(Function));
    expect(screen.queryByTestId("chat-continue")).not.toBeInTheDocument();
    const onEvent = vi.mocked(api.chatResume).mock.calls[0][1];
    act(() => {
      onEvent({ type: "RUN_STARTED", threadId: "th0", runId: "r9" });
      onEvent({ type: "TEXT_MESSAGE_START", messageId: "m", role: "assistant" });
      onEvent({ type: "TEXT_MESSAGE_CONTENT", messageId: "m", delta: "床前明月光……" });
      onEvent({ type: "TEXT_MESSAGE_END", messageId: "m" });
      onEvent({ type: "RUN_FINISHED", threadId: "th0", runId: "r9" });
    });
    expect(screen.getByTestId("assistant-message")).toHaveTextContent("床前明月光");
    expect(screen.queryByTestId("chat-continue")).not.toBeInTheDocument();
  });

  it("after a run the parent's usage line is read again", async () => {
    const view = (runs: RunSummary[]) => ({ thread: thread("th0", "古诗作业"), messages: [], todos: [], tool_calls: [], runs, approvals: [], subagents: [] });
    vi.mocked(api.chatThread)
      .mockResolvedValueOnce(view([run("r0", "completed", 2)]))
      .mockResolvedValue(view([run("r0", "completed", 2), run("r1", "completed", 3)]));
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={mum} onBack={vi.fn()} />);
    await user.click(await screen.findByTestId("thread-item"));
    expect(await screen.findByTestId("chat-usage")).toHaveTextContent("2 次模型调用");
    await user.type(screen.getByTestId("chat-input"), "再讲一首");
    await user.click(screen.getByTestId("chat-send"));
    const push = stream();
    push({ type: "RUN_STARTED", threadId: "th0", runId: "r1" }, { type: "RUN_FINISHED", threadId: "th0", runId: "r1" });
    await waitFor(() => expect(screen.getByTestId("chat-usage")).toHaveTextContent("5 次模型调用"));
    expect(api.chatThread).toHaveBeenLastCalledWith("th0");
  });

  it("a parent decides a call the run paused on, and the run goes on", async () => {
    vi.mocked(api.chatThread).mockResolvedValue({
      thread: thread("th0", "古诗作业"),
      messages: [],
      todos: [],
      tool_calls: [],
      runs: [run("r5", "interrupted")],
      approvals: [
        { tool_call_id: "c1", run_id: "r5", tool: "internet_search", arguments: '{"query":"恐龙"}', requested_at: "" },
      ],
      subagents: [],
    });
    vi.mocked(api.chatDecide).mockResolvedValue({ thread_id: "th0", run_id: "r5" });
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={mum} onBack={vi.fn()} />);
    await user.click(await screen.findByTestId("thread-item"));
    expect(await screen.findByTestId("approval-card")).toHaveTextContent("internet_search");
    // Waiting for a decision, not "continue".
    expect(screen.queryByTestId("chat-continue")).not.toBeInTheDocument();
    // Changed arguments are sent as an edit.
    const args = screen.getByTestId("approval-args");
    await user.clear(args);
    await user.type(args, '{{"query":"霸王龙"}');
    await user.click(screen.getByTestId("approval-approve"));
    expect(api.chatDecide).toHaveBeenCalledWith(
      "r5",
      [{ tool_call_id: "c1", decision: { decision: "edit", arguments: '{"query":"霸王龙"}' } }],
      expect.any(Function),
    );
    expect(screen.queryByTestId("approval-card")).not.toBeInTheDocument();
  });

  it("on a child's screen the parent's PIN comes first; a rejection needs a reason", async () => {
    vi.mocked(api.chatThread).mockResolvedValue({
      thread: thread("th0", "古诗作业"),
      messages: [],
      todos: [],
      tool_calls: [],
      runs: [run("r5", "interrupted")],
      approvals: [{ tool_call_id: "c1", run_id: "r5", tool: "internet_search", arguments: "{}", requested_at: "" }],
      subagents: [],
    });
    vi.mocked(api.profilesList).mockResolvedValue([ming, mum]);
    vi.mocked(api.parentUnlock).mockResolvedValue(null as never);
    vi.mocked(api.chatDecide).mockResolvedValue({ thread_id: "th0", run_id: "r5" });
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={ming} onBack={vi.fn()} />);
    await user.click(await screen.findByTestId("thread-item"));
    expect(await screen.findByTestId("approval-card")).toBeInTheDocument();
    expect(screen.queryByTestId("approval-approve")).not.toBeInTheDocument();
    await user.click(screen.getByTestId("approval-ask-parent"));
    await user.type(await screen.findByTestId("pin-input"), "2468");
    await user.click(screen.getByTestId("pin-submit"));
    expect(api.parentUnlock).toHaveBeenCalledWith("p1", "2468");
    expect(await screen.findByTestId("approval-reject")).toBeDisabled();
    await user.type(screen.getByTestId("approval-note"), "先写作业");
    await user.click(screen.getByTestId("approval-reject"));
    expect(api.chatDecide).toHaveBeenCalledWith(
      "r5",
      [{ tool_call_id: "c1", decision: { decision: "reject", reason: "先写作业" } }],
      expect.any(Function),
    );
  });

  it("says so when continuing fails", async () => {
    vi.mocked(api.chatThread).mockResolvedValue({
      thread: thread("th0", "古诗作业"),
      messages: [],
      todos: [],
      tool_calls: [],
      runs: [run("r9", "interrupted")],
      approvals: [],
      subagents: [],
    });
    vi.mocked(api.chatResume).mockRejectedValue("this run cannot be continued");
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={ming} onBack={vi.fn()} />);
    await user.click(await screen.findByTestId("thread-item"));
    await user.click(await screen.findByTestId("chat-continue"));
    expect(await screen.findByTestId("chat-error")).toHaveTextContent("this run cannot be continued");
  });

  it("without a model: children are told to ask a parent, the input is off", async () => {
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: null, base_url: null, has_key: false, notice: NOTICE_NONE });
    renderWithI18n(<ChatScreen profile={ming} onBack={vi.fn()} />);
    expect(await screen.findByTestId("chat-not-configured")).toHaveTextContent("请爸爸妈妈在家长区设置 AI 助手");
    expect(screen.queryByTestId("chat-open-settings")).not.toBeInTheDocument();
    expect(screen.getByTestId("chat-input")).toBeDisabled();
  });

  it("without a model: parents get a link to Settings", async () => {
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: null, base_url: null, has_key: false, notice: NOTICE_NONE });
    const onOpenSettings = vi.fn();
    const user = userEvent.setup();
    renderWithI18n(<ChatScreen profile={mum} onBack={vi.fn()} onOpenSettings={onOpenSettings} />);
    await user.click(await screen.findByTestId("chat-open-settings"));
    expect(onOpenSettings).toHaveBeenCalledTimes(1);
  });
});
