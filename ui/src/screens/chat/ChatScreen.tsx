import { useCallback, useEffect, useReducer, useRef, useState, type DragEvent, type FormEvent, type KeyboardEvent } from "react";
import { Icon } from "../../components/Icon";
import * as api from "../../api";
import { readUploads } from "../../companionApi";
import type { AgUiEvent, ApprovalAnswer, LlmSettings, Profile, ThreadSummary, TodoStatus } from "../../api";
import { chatReducer, initialChatView, resumableRun, threadUsage, type ChatItem } from "../../chat/reducer";
import { Header } from "../../components/Header";
import { errorText } from "../../errors";
import { useT, type MessageKey } from "../../i18n";
import { ApprovalCard } from "./ApprovalCard";
import { ToolCard } from "./ToolCard";
import { modelReady } from "../../modelReady";

type ToolItem = Extract<ChatItem, { kind: "tool" }>;

/** The items to show, with runs of two or more live subagent lanes grouped to sit side by side. */
export function withLaneRows(items: ChatItem[]): (ChatItem | ToolItem[])[] {
  const out: (ChatItem | ToolItem[])[] = [];
  let row: ToolItem[] = [];
  const flush = () => {
    if (row.length > 1) out.push(row);
    else out.push(...row);
    row = [];
  };
  for (const it of items) {
    if (it.kind === "tool" && it.lane && it.status === "pending") {
      row.push(it);
      continue;
    }
    flush();
    out.push(it);
  }
  flush();
  return out;
}

/** Who answers a parent's message: the companion, or the team under a supervisor. */
type ChatMode = "agent" | "supervisor";

/** What the chat assumes when the settings cannot be read: no model. */
const NO_SETTINGS: LlmSettings = {
  model: null,
  base_url: null,
  has_key: false,
  notice: { version: 0, endpoint: null, moderation: null, text_zh: "", text_en: "", agreed_at: null },
};

const TODO_KEYS: Record<TodoStatus, MessageKey> = {
  pending: "chat.todo.pending",
  in_progress: "chat.todo.inProgress",
  completed: "chat.todo.completed",
};
const TODO_ICONS: Record<TodoStatus, string> = { pending: "○", in_progress: "◐", completed: "●" };

interface ChatScreenProps {
  profile: Profile;
  onBack: () => void;
  /** Parents only: open Settings to configure the AI provider. */
  onOpenSettings?: () => void;
  /** A request the one entry handed to the companion: sent at once, in a new thread. */
  handoff?: { traceId: string; text: string };
}

let localId = 0;

/** Chat with the companion: threads, streamed answers, tool cards, the live todo list, Stop. */
export function ChatScreen({ profile, onBack, onOpenSettings, handoff }: ChatScreenProps) {
  const t = useT();
  const [view, dispatch] = useReducer(chatReducer, initialChatView);
  const [settings, setSettings] = useState<LlmSettings | null>(null);
  const [threads, setThreads] = useState<ThreadSummary[] | null>(null);
  const [threadsError, setThreadsError] = useState<string | null>(null);
  const [listOpen, setListOpen] = useState(false);
  const [input, setInput] = useState("");
  const [files, setFiles] = useState<File[]>([]);
  const [dragging, setDragging] = useState(false);
  const [loadingThread, setLoadingThread] = useState(false);
  const logRef = useRef<HTMLDivElement>(null);
  const wasRunning = useRef(false);
  const isChild = profile.kind === "child";
  const [mode, setMode] = useState<ChatMode>("agent");

  const loadThreads = useCallback(async () => {
    try {
      const list = await api.chatThreads(profile.id);
      setThreads(Array.isArray(list) ? list : []);
      setThreadsError(null);
    } catch (e) {
      setThreadsError(errorText(e));
    }
  }, [profile.id]);

  useEffect(() => {
    let stale = false;
    (async () => {
      try {
        const s = await api.llmSettingsGet();
        if (!stale) setSettings(s ?? NO_SETTINGS);
      } catch {
        if (!stale) setSettings(NO_SETTINGS);
      }
    })();
    void loadThreads();
    return () => {
      stale = true;
    };
  }, [loadThreads]);

  // A run that ended may have named or created a thread, and added to its usage.
  useEffect(() => {
    if (wasRunning.current && !view.running) {
      void loadThreads();
      const threadId = view.threadId;
      if (threadId) {
        void (async () => {
          try {
            const tv = await api.chatThread(threadId);
            dispatch({ type: "runs", threadId, runs: tv.runs, approvals: tv.approvals });
          } catch {
            // The usage line keeps its last figures; the conversation itself is unaffected.
          }
        })();
      }
    }
    wasRunning.current = view.running;
  }, [view.running, view.threadId, loadThreads]);

  useEffect(() => {
    const el = logRef.current;
    if (el) el.scrollTop = el.scrollHeight;
  }, [view.items]);

  // Ready once a model is set up and a parent agreed to the notice of what is sent where.
  const configured = settings ? modelReady(settings) : null;

  async function openThread(id: string) {
    if (view.running || id === view.threadId) return;
    setLoadingThread(true);
    setListOpen(false);
    try {
      const tv = await api.chatThread(id);
      dispatch({ type: "load", view: tv });
    } catch (e) {
      dispatch({ type: "failed", message: errorText(e) });
    } finally {
      setLoadingThread(false);
    }
  }

  function newThread() {
    if (view.running) return;
    dispatch({ type: "reset" });
    setListOpen(false);
  }

  /** A parent's chat can hand a message to the team in supervisor mode
   * instead of the companion; it is not kept as a conversation, so the
   * switch starts an empty one. */
  function chooseMode(next: ChatMode) {
    if (view.running || next === mode) return;
    setMode(next);
    dispatch({ type: "reset" });
  }

  /** Files picked, photographed or dropped join those already chosen (the core refuses more than five). */
  function attach(more: File[]) {
    if (more.length > 0) setFiles((had) => [...had, ...more]);
  }

  function onDrop(e: DragEvent<HTMLElement>) {
    e.preventDefault();
    setDragging(false);
    attach(Array.from(e.dataTransfer?.files ?? []));
  }

  async function send(ev?: FormEvent) {
    ev?.preventDefault();
    const text = input.trim();
    if (!text || view.running || configured === false) return;
    const attached = files;
    setInput("");
    setFiles([]);
    localId += 1;
    const shown = attached.length ? `${text}\n${t("chat.attached", { names: attached.map((f) => f.name).join(", ") })}` : text;
    dispatch({ type: "user", id: `local-${localId}`, text: shown });
    try {
      const onEvent = (event: AgUiEvent) => dispatch({ type: "event", event });
      if (mode === "supervisor" && !isChild) {
        // Steps and replies arrive as events; there is no thread to follow.
        await api.chatSupervise(text, onEvent);
        return;
      }
      const r = attached.length
        ? await api.chatSend(view.threadId, profile.id, text, onEvent, await readUploads(attached))
        : await api.chatSend(view.threadId, profile.id, text, onEvent);
      if (r) dispatch({ type: "sent", thread_id: r.thread_id, run_id: r.run_id });
    } catch (e) {
      dispatch({ type: "failed", message: errorText(e) });
    }
  }

  // The request handed off is sent once, as the child's first message.
  const handedOff = useRef(false);
  useEffect(() => {
    if (!handoff || handedOff.current) return;
    handedOff.current = true;
    localId += 1;
    dispatch({ type: "user", id: `local-${localId}`, text: handoff.text });
    void (async () => {
      try {
        const r = await api.chatHandoff(profile.id, handoff.traceId, handoff.text, (event) =>
          dispatch({ type: "event", event }),
        );
        if (r) dispatch({ type: "sent", thread_id: r.thread_id, run_id: r.run_id });
      } catch (e) {
        dispatch({ type: "failed", message: errorText(e) });
      }
    })();
  }, [handoff, profile.id]);

  async function resume(runId: string) {
    if (view.running) return;
    dispatch({ type: "resuming" });
    try {
      const r = await api.chatResume(runId, (event) => dispatch({ type: "event", event }));
      if (r) dispatch({ type: "sent", thread_id: r.thread_id, run_id: r.run_id });
    } catch (e) {
      dispatch({ type: "failed", message: errorText(e) });
    }
  }

  async function decide(runId: string, answers: ApprovalAnswer[]) {
    if (view.running) return;
    dispatch({ type: "resuming" });
    try {
      const r = await api.chatDecide(runId, answers, (event) => dispatch({ type: "event", event }));
      if (r) dispatch({ type: "sent", thread_id: r.thread_id, run_id: r.run_id });
    } catch (e) {
      dispatch({ type: "failed", message: errorText(e) });
    }
  }

  async function stop() {
    if (!view.runId) return;
    try {
      await api.chatCancel(view.runId);
    } catch (e) {
      // The run's own events still say how it ends.
      dispatch({ type: "error", message: errorText(e) });
    }
  }

  function onKey(e: KeyboardEvent<HTMLTextAreaElement>) {
    if (e.key === "Enter" && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault();
      void send();
    }
  }

  const activeTitle = threads?.find((x) => x.id === view.threadId)?.title;
  const cutOff = resumableRun(view);
  const usage = !isChild && view.runs.length > 0 ? threadUsage(view.runs) : null;

  return (
    <>
      <Header onBack={onBack} />
      <main className="content chat" data-testid="chat-screen">
        <div className="page-head">
          <h1 className="page-title">{t("chat.title")}</h1>
          <button
            type="button"
            className="btn btn-secondary chat-threads-toggle"
            data-testid="chat-threads-toggle"
            aria-expanded={listOpen}
            aria-controls="chat-threads"
            onClick={() => setListOpen((o) => !o)}
          >
            <Icon name="menu" /> {t("chat.threads")}
          </button>
        </div>

        {configured === false && (
          <div className="banner banner-info" role="status" data-testid="chat-not-configured">
            <span>
              {isChild
                ? t("chat.notConfiguredChild")
                : settings?.model
                  ? t("chat.noticeNotAgreedParent")
                  : t("chat.notConfiguredParent")}
            </span>
            {!isChild && onOpenSettings && (
              <button type="button" className="btn btn-secondary" data-testid="chat-open-settings" onClick={onOpenSettings}>
                {t("chat.openSettings")}
              </button>
            )}
          </div>
        )}

        <div className={listOpen ? "chat-layout list-open" : "chat-layout"}>
          <aside className="chat-threads card" id="chat-threads" aria-label={t("chat.threads")}>
            <button
              type="button"
              className="btn btn-primary chat-new"
              data-testid="chat-new"
              onClick={newThread}
              disabled={view.running}
            >
              <Icon name="plus" /> {t("chat.new")}
            </button>
            {threadsError && <p className="muted small">{t("chat.threadsError", { error: threadsError })}</p>}
            {threads && threads.length === 0 && <p className="muted small">{t("chat.noThreads")}</p>}
            <ul className="thread-list">
              {(threads ?? []).map((th) => (
                <li key={th.id}>
                  <button
                    type="button"
                    className="thread-item"
                    data-testid="thread-item"
                    data-thread-id={th.id}
                    aria-current={th.id === view.threadId ? "true" : undefined}
                    disabled={view.running && th.id !== view.threadId}
                    onClick={() => void openThread(th.id)}
                  >
                    <span className="thread-title">{th.title || t("chat.untitled")}</span>
                    <span className="thread-date">{th.updated_at?.slice(0, 10)}</span>
                  </button>
                </li>
              ))}
            </ul>
          </aside>

          <section className="chat-main card" aria-label={activeTitle ?? t("chat.title")}>
            {view.todos.length > 0 && (
              <div className="todo-box">
                <h2 className="field-label">{t("chat.plan")}</h2>
                <ul className="todo-list">
                  {view.todos.map((td, i) => (
                    <li key={i} className={`todo-item todo-${td.status}`} data-testid="todo-item" data-status={td.status}>
                      <span className="todo-icon" aria-hidden="true">
                        {TODO_ICONS[td.status]}
                      </span>
                      <span className="todo-text">{td.content}</span>
                      <span className="visually-hidden">{t(TODO_KEYS[td.status])}</span>
                    </li>
                  ))}
                </ul>
              </div>
            )}

            <div className="chat-log" ref={logRef} aria-live="polite" aria-busy={view.running}>
              {loadingThread && <p className="muted">{t("common.loading")}</p>}
              {view.items.length === 0 && !loadingThread && (
                <p className="chat-empty">{isChild ? t("chat.emptyChild") : t("chat.emptyParent")}</p>
              )}
              <ul className="chat-items">
                {withLaneRows(view.items).map((it) =>
                  Array.isArray(it) ? (
                    // Subagents working at the same time, side by side.
                    <li key={`lanes-${it[0].id}`} className="lane-row" data-testid="lane-row">
                      <ul className="lane-row-items">
                        {it.map((card) => (
                          <ToolCard key={`tool-${card.id}`} item={card} />
                        ))}
                      </ul>
                    </li>
                  ) : it.kind === "tool" ? (
                    <ToolCard key={`tool-${it.id}`} item={it} />
                  ) : (
                    <li
                      key={`msg-${it.id}`}
                      className={`bubble bubble-${it.role}${it.streaming ? " is-streaming" : ""}`}
                      data-testid={it.role === "assistant" ? "assistant-message" : it.role === "user" ? "user-message" : "system-message"}
                    >
                      {it.text}
                      {it.streaming && <span className="cursor" aria-hidden="true" />}
                    </li>
                  ),
                )}
              </ul>
              {view.running && (
                <p className="muted small chat-working">
                  <span className="spinner" aria-hidden="true" /> {view.step ? t("chat.step", { step: view.step }) : t("chat.thinking")}
                </p>
              )}
            </div>

            {!view.running && view.approvals.length > 0 && (
              <ApprovalCard
                key={view.approvals.map((a) => a.tool_call_id).join(",")}
                approvals={view.approvals}
                needsPin={isChild}
                onDecide={(answers) => void decide(view.approvals[0].run_id, answers)}
              />
            )}
            {cutOff && (
              <div className="banner banner-info" role="status" data-testid="chat-interrupted">
                <span>{t("chat.interrupted")}</span>
                <button type="button" className="btn btn-primary" data-testid="chat-continue" onClick={() => void resume(cutOff.id)}>
                  {t("chat.continue")}
                </button>
              </div>
            )}
            {usage && (
              <p className="muted small chat-usage" data-testid="chat-usage">
                {t("chat.usage", {
                  calls: usage.calls,
                  input: usage.input,
                  output: usage.output,
                  cost: usage.cost.toFixed(4),
                })}
              </p>
            )}

            {view.error && (
              <p className="banner banner-error" role="alert" data-testid="chat-error">
                {t("chat.error", { error: view.error })}
              </p>
            )}

            {files.length > 0 && (
              <ul className="chat-attachments" data-testid="chat-attachments" aria-label={t("chat.attach")}>
                {files.map((f, i) => (
                  <li key={`${f.name}-${i}`} className="tag" data-testid="chat-attachment">
                    <Icon name="clip" size={14} /> {f.name}{" "}
                    <button
                      type="button"
                      className="btn-link"
                      aria-label={t("chat.attachRemove", { name: f.name })}
                      onClick={() => setFiles((had) => had.filter((_, j) => j !== i))}
                    >
                      ×
                    </button>
                  </li>
                ))}
              </ul>
            )}
            {!isChild && (
              <div className="segmented chat-mode" role="group" aria-label={t("chat.mode")}>
                {(["agent", "supervisor"] as const).map((m) => (
                  <button
                    key={m}
                    type="button"
                    className="segmented-item"
                    data-testid={`chat-mode-${m}`}
                    aria-pressed={mode === m}
                    disabled={view.running}
                    title={t(m === "agent" ? "chat.modeAgentHint" : "chat.modeSupervisorHint")}
                    onClick={() => chooseMode(m)}
                  >
                    {t(m === "agent" ? "chat.modeAgent" : "chat.modeSupervisor")}
                  </button>
                ))}
              </div>
            )}
            <form
              className={`chat-form${dragging ? " drop-target" : ""}`}
              data-testid="chat-form"
              onSubmit={(e) => void send(e)}
              onDragOver={(e) => {
                e.preventDefault();
                setDragging(true);
              }}
              onDragLeave={() => setDragging(false)}
              onDrop={onDrop}
            >
              <label className="btn btn-secondary chat-attach" title={t("chat.attachHint")}>
                <Icon name="clip" />
                <span className="visually-hidden">{t("chat.attach")}</span>
                <input
                  type="file"
                  multiple
                  className="visually-hidden"
                  data-testid="chat-attach"
                  accept=".txt,.md,.csv,.json,.pdf,.docx,image/png,image/jpeg,image/gif,image/webp"
                  disabled={configured === false}
                  onChange={(e) => {
                    attach(Array.from(e.target.files ?? []));
                    e.target.value = "";
                  }}
                />
              </label>
              <label className="btn btn-secondary chat-attach" title={t("chat.attachHint")}>
                <Icon name="camera" />
                <span className="visually-hidden">{t("chat.camera")}</span>
                <input
                  type="file"
                  accept="image/*"
                  capture="environment"
                  className="visually-hidden"
                  data-testid="chat-camera"
                  disabled={configured === false}
                  onChange={(e) => {
                    attach(Array.from(e.target.files ?? []));
                    e.target.value = "";
                  }}
                />
              </label>
              <label className="visually-hidden" htmlFor="chat-input">
                {t("chat.inputLabel")}
              </label>
              <textarea
                id="chat-input"
                data-testid="chat-input"
                className="input chat-input"
                rows={2}
                placeholder={isChild ? t("chat.placeholderChild") : t("chat.placeholderParent")}
                value={input}
                disabled={configured === false}
                onChange={(e) => setInput(e.target.value)}
                onKeyDown={onKey}
              />
              {view.running ? (
                <button
                  type="button"
                  className="btn btn-secondary btn-large"
                  data-testid="chat-stop"
                  onClick={() => void stop()}
                  disabled={!view.runId}
                >
                  ■ {t("chat.stop")}
                </button>
              ) : (
                <button
                  type="submit"
                  className="btn btn-primary btn-large"
                  data-testid="chat-send"
                  disabled={!input.trim() || configured === false}
                >
                  {t("chat.send")}
                </button>
              )}
            </form>
          </section>
        </div>
      </main>
    </>
  );
}
