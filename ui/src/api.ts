/**
 * Typed layer over the Tauri commands of the Rust core.
 *
 * One function per command. Argument keys are camelCase here; Tauri maps them
 * to the Rust snake_case parameter names. Returned structs keep the Rust
 * snake_case field names. Every function rejects with a plain-language
 * string that can be shown to the user as-is.
 */
import { Channel, invoke } from "@tauri-apps/api/core";
import { errorText } from "./errors";

export type ProfileKind = "parent" | "child";
export type Lang = "zh" | "en";
export type Locale = "zh-CN" | "en";

export interface Profile {
  id: string;
  kind: ProfileKind;
  name: string;
  grade: number | null;
  locale: string;
  time_zone: string;
  has_pin: boolean;
  created_at: string;
  updated_at: string;
}

export interface Material {
  id: string;
  slug: string | null;
  source: "builtin" | "custom";
  lang: Lang;
  title: string;
  author: string | null;
  dynasty: string | null;
  grade: number | null;
  level: number | null;
  body: string;
  created_at: string;
  updated_at: string;
}

export interface MaterialFilter {
  lang?: Lang | null;
  grade?: number | null;
  search?: string | null;
}

export interface NewProfile {
  kind: ProfileKind;
  name: string;
  grade?: number | null;
  pin?: string | null;
  locale?: string | null;
  time_zone?: string | null;
}

export interface NewMaterial {
  lang: Lang;
  title: string;
  body: string;
  author?: string | null;
  grade?: number | null;
}

export type CheckStatus = "ok" | "warn" | "fail";

export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
  fix: string | null;
}

export interface AppStatus {
  first_run: boolean;
  locale: Locale;
  data_dir: string;
  schema_version: number;
}

async function call<T>(cmd: string, args?: Record<string, unknown> | (() => Record<string, unknown>)): Promise<T> {
  try {
    // A function builds its arguments inside the try: a `Channel` cannot be
    // made outside the Tauri window, and that too must reject with a string.
    return await invoke<T>(cmd, typeof args === "function" ? args() : args);
  } catch (e) {
    // Always reject with a string, whatever shape the error had.
    throw errorText(e);
  }
}

export function appStatus(): Promise<AppStatus> {
  return call<AppStatus>("app_status");
}

export function profilesList(): Promise<Profile[]> {
  return call<Profile[]>("profiles_list");
}

export function setupFamily(parent: NewProfile, child: NewProfile): Promise<Profile[]> {
  return call<Profile[]>("setup_family", { parent, child });
}

export function profilesAdd(profile: NewProfile): Promise<Profile> {
  return call<Profile>("profiles_add", { profile });
}

export function parentUnlock(profileId: string, pin: string): Promise<null> {
  return call<null>("parent_unlock", { profileId, pin });
}

export function materialsList(filter: MaterialFilter): Promise<Material[]> {
  return call<Material[]>("materials_list", { filter });
}

export function materialsAdd(material: NewMaterial, createdBy: string | null): Promise<Material> {
  return call<Material>("materials_add", { material, createdBy });
}

export function localeSet(locale: Locale): Promise<null> {
  return call<null>("locale_set", { locale });
}

export function doctor(): Promise<Check[]> {
  return call<Check[]>("doctor");
}

// ---------------------------------------------------------------------------
// A. Recitation practice and reports
// ---------------------------------------------------------------------------

export type PracticeMode = "voice" | "text";

/** A review the schedule says is due (most overdue first). */
export interface DueReview {
  material_id: string;
  title: string;
  lang: Lang | string;
  /** RFC 3339. The spec names it `due_at`; `deskmate_recite::schedule::DueReview` names it `next_review_at`. */
  due_at?: string;
  next_review_at?: string;
  /** Days past the due date in the child's time zone (0 = due today). */
  overdue_days: number;
}

/** `crates/recite/src/verdict.rs` ErrorType, plus "uncertain" should the shell flatten the flag into the type. */
export type RecitationErrorType = "omission" | "insertion" | "substitution" | "order" | "uncertain";

export interface RecitationError {
  type: RecitationErrorType;
  /** line | part | extra | tone | sound | homophone | spelling | other | swap | move */
  kind: string;
  /** 1-based line of the reference. */
  line: number;
  /** 0-based unit offset in the line (a character for Chinese, a word for English). */
  offset: number;
  expected: string;
  actual: string;
  label_zh?: string;
  label_en?: string;
  /** Speech recognition was unsure: the child may well have been right. */
  uncertain?: boolean;
}

export interface PracticeFeedback {
  zh: string;
  en: string;
  tip_zh: string | null;
  tip_en: string | null;
}

export interface PracticeResult {
  attempt_id: string;
  attempt_number: number;
  /** 0–100. */
  accuracy: number;
  passed: boolean;
  units: number;
  correct: number;
  transcript: string;
  errors: RecitationError[];
  /** The reference split into lines (index = line − 1). */
  lines: string[];
  feedback: PracticeFeedback;
  /** When the review schedule next asks for this material (RFC 3339), if this attempt scheduled it. */
  next_review_at?: string | null;
  review_interval_days?: number | null;
}

export type PracticeStateName = "idle" | "ready" | "listening" | "checking" | "feedback" | "done";

export interface PracticeState {
  state: PracticeStateName;
  task_id?: string;
  attempt_id?: string;
  accuracy?: number;
  passed?: boolean;
}

export interface PracticeView {
  id: string;
  profile_id: string;
  material: Material;
  mode: PracticeMode;
  is_review: boolean;
  /** Verdicts received so far in this practice. */
  attempts: number;
  state: PracticeState;
  last_result: PracticeResult | null;
}

/** `listening`: the microphone is open (a recording's task id exists from then on). */
export type TaskStatus = "listening" | "queued" | "transcribing" | "checking" | "done" | "failed";

export interface TaskRef {
  task_id: string;
}

export type ReportKind = "daily" | "weekly";

/** `crates/recite/src/report.rs` PeriodSummary. */
export interface PeriodSummary {
  attempts: number;
  minutes: number;
  average_accuracy: number | null;
  passes: number;
  first_passes: number;
  materials_practised: number;
  materials_mastered: number;
  reviews: number;
}

export type TrendDirection = "up" | "down" | "steady" | "new";

export interface Trend {
  attempts: number;
  minutes: number;
  /** Percentage points; null when either period has no attempts. */
  average_accuracy: number | null;
  direction: TrendDirection | string;
}

export interface WeakPattern {
  material_id: string;
  title: string;
  error_type: string;
  line: number;
  expected: string;
  actual: string;
  occurrences: number;
}

export interface WeakMaterial {
  material_id: string;
  title: string;
  attempts: number;
  average_accuracy: number;
  passed: boolean;
}

export interface DaySummary {
  /** YYYY-MM-DD */
  date: string;
  attempts: number;
  minutes: number;
  average_accuracy: number | null;
}

export interface Report {
  profile_id: string;
  report_type: ReportKind;
  /** The day, or the Monday of the week (YYYY-MM-DD). */
  report_date: string;
  time_zone: string;
  period_start: string;
  period_end: string;
  summary: PeriodSummary;
  previous: PeriodSummary;
  trend: Trend;
  top_patterns: WeakPattern[];
  weakest_materials: WeakMaterial[];
  /** Weekly reports: each day of the week (absent on daily reports). */
  days?: DaySummary[];
  generated_at: string;
}

export function reviewsDue(profileId: string): Promise<DueReview[]> {
  return call<DueReview[]>("reviews_due", { profileId });
}

export function practiceStart(profileId: string, materialId: string, mode: PracticeMode): Promise<PracticeView> {
  return call<PracticeView>("practice_start", { profileId, materialId, mode });
}

export function practiceCurrent(profileId: string): Promise<PracticeView | null> {
  return call<PracticeView | null>("practice_current", { profileId });
}

export function practiceSubmitText(practiceId: string, text: string): Promise<TaskRef> {
  return call<TaskRef>("practice_submit_text", { practiceId, text });
}

/** Opens the microphone; answers with the attempt's task id at once. */
export function practiceRecordStart(practiceId: string): Promise<TaskRef> {
  return call<TaskRef>("practice_record_start", { practiceId });
}

export function practiceRecordStop(practiceId: string): Promise<TaskRef> {
  return call<TaskRef>("practice_record_stop", { practiceId });
}

export function practiceRetry(practiceId: string): Promise<PracticeView> {
  return call<PracticeView>("practice_retry", { practiceId });
}

export function practiceLeave(practiceId: string): Promise<null> {
  return call<null>("practice_leave", { practiceId });
}

export function report(profileId: string, kind: ReportKind, date: string): Promise<Report> {
  return call<Report>("report", { profileId, kind, date });
}

/** `crates/app/src/report_attempts.rs` ListedAttempt. */
export interface ListedAttempt {
  id: string;
  material_id: string;
  title: string;
  mode: PracticeMode | string;
  accuracy: number;
  passed: boolean;
  purpose: "learn" | "review";
  /** The attempt's number within its practice. */
  attempt_no: number;
  created_at: string;
}

/** A report's attempts, oldest first; `from`/`to` are the report's `period_start`/`period_end`. */
export function reportAttempts(profileId: string, from: string, to: string): Promise<ListedAttempt[]> {
  return call<ListedAttempt[]>("report_attempts", { profileId, from, to });
}

// ---------------------------------------------------------------------------
// B. Chat
// ---------------------------------------------------------------------------

export interface ThreadSummary {
  id: string;
  title: string;
  profile_id: string | null;
  created_at: string;
  updated_at: string;
}

export type ChatRole = "user" | "assistant" | "tool" | "system";

export interface ChatToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ChatMessage {
  id: string;
  role: ChatRole;
  content: string;
  tool_calls: ChatToolCall[] | null;
  tool_call_id: string | null;
  /** For a tool result: whether the tool failed (optional; otherwise read from an "Error…" content). */
  is_error?: boolean;
  created_at: string;
}

export type TodoStatus = "pending" | "in_progress" | "completed";

export interface Todo {
  content: string;
  status: TodoStatus;
}

/** A tool call as stored (`deskmate_agent::persist::StoredToolCall`): the shell's `chat_thread` adds these. */
export interface StoredToolCall {
  id: string;
  name: string;
  arguments: string;
  /** pending | completed | error | interrupted */
  status: string;
  result: string | null;
}

export interface ThreadView {
  thread: ThreadSummary;
  messages: ChatMessage[];
  todos: Todo[];
  /** Every tool call with its status and result (optional; otherwise read from the tool messages). */
  tool_calls?: StoredToolCall[];
}

export interface ChatSendResult {
  thread_id: string;
  run_id: string;
}

/** AG-UI events as `crates/agent/src/events.rs` serializes them (camelCase, `type` tag). */
export type AgUiEvent =
  | { type: "RUN_STARTED"; threadId: string; runId: string }
  | { type: "RUN_FINISHED"; threadId: string; runId: string; result?: unknown }
  | { type: "RUN_ERROR"; message: string; code?: string }
  | { type: "STEP_STARTED"; stepName: string }
  | { type: "STEP_FINISHED"; stepName: string }
  | { type: "TEXT_MESSAGE_START"; messageId: string; role: string }
  | { type: "TEXT_MESSAGE_CONTENT"; messageId: string; delta: string }
  | { type: "TEXT_MESSAGE_END"; messageId: string }
  | { type: "TOOL_CALL_START"; toolCallId: string; toolCallName: string; parentMessageId?: string }
  | { type: "TOOL_CALL_ARGS"; toolCallId: string; delta: string }
  | { type: "TOOL_CALL_END"; toolCallId: string }
  | { type: "TOOL_CALL_RESULT"; messageId: string; toolCallId: string; content: string; role?: string }
  | { type: "STATE_SNAPSHOT"; snapshot: unknown }
  | { type: "STATE_DELTA"; delta: JsonPatchOp[] };

export interface JsonPatchOp {
  op: "add" | "remove" | "replace" | "move" | "copy" | "test";
  path: string;
  value?: unknown;
  from?: string;
}

export interface LlmSettings {
  /** "provider:model", e.g. "openai:gpt-4o-mini"; null when none is configured. */
  model: string | null;
  base_url: string | null;
  has_key: boolean;
}

export function chatThreads(profileId: string | null): Promise<ThreadSummary[]> {
  return call<ThreadSummary[]>("chat_threads", { profileId });
}

export async function chatThread(threadId: string): Promise<ThreadView> {
  return normalizeThreadView(await call<unknown>("chat_thread", { threadId }));
}

/** Starts a run; `onEvent` gets its AG-UI events as they stream in (through a Tauri `Channel`). */
export function chatSend(
  threadId: string | null,
  profileId: string | null,
  message: string,
  onEvent: (event: AgUiEvent) => void,
): Promise<ChatSendResult> {
  return call<ChatSendResult>("chat_send", () => {
    const channel = new Channel<AgUiEvent>();
    channel.onmessage = onEvent;
    return { threadId, profileId, message, onEvent: channel };
  });
}

export function chatCancel(runId: string): Promise<null> {
  return call<null>("chat_cancel", { runId });
}

export async function llmSettingsGet(): Promise<LlmSettings> {
  const raw = await call<LlmSettings & { key_source?: string | null }>("llm_settings_get");
  // `deskmate_app::chat::LlmSettings` carries `key_source` rather than `has_key`; accept either.
  const has_key = typeof raw.has_key === "boolean" ? raw.has_key : raw.key_source != null;
  return { model: raw.model ?? null, base_url: raw.base_url ?? null, has_key };
}

export function llmSettingsSave(model: string, baseUrl: string | null, apiKey: string | null): Promise<null> {
  return call<null>("llm_settings_save", { model, baseUrl, apiKey });
}

export function llmKeyDelete(): Promise<null> {
  return call<null>("llm_key_delete");
}

export function llmTest(): Promise<string> {
  return call<string>("llm_test");
}

/** An OpenAI-compatible speech service for spoken feedback (`deskmate_app::voice_out::CloudVoice`). */
export interface CloudVoice {
  base_url: string;
  model: string;
  voice: string;
  /** Whose chat API key to send (a provider name), or none. */
  key_provider: string | null;
}

/** What a test phrase did (`deskmate_app::voice_out::VoiceTest`). */
export interface VoiceTest {
  text: string;
  backend: string;
  fell_back: string | null;
  seconds: number;
}

/** The cloud voice, or null when feedback is spoken offline by espeak-ng. */
export function voiceSettingsGet(): Promise<CloudVoice | null> {
  return call<CloudVoice | null>("voice_settings_get");
}

/** Saves the cloud voice; null goes back to espeak-ng only. */
export function voiceSettingsSave(cloud: CloudVoice | null): Promise<null> {
  return call<null>("voice_settings_save", { cloud });
}

export function voiceTest(lang: "zh" | "en"): Promise<VoiceTest> {
  return call<VoiceTest>("voice_test", { lang });
}

type Loose = Record<string, unknown>;
const isObj = (v: unknown): v is Loose => typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The text of a message's content, whether a string or a list of `{type:"text", text}` parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) => (typeof p === "string" ? p : isObj(p) && typeof p.text === "string" ? p.text : ""))
      .join("");
  }
  return "";
}

/**
 * Brings a `chat_thread` answer to the spec's `ThreadView` shape. Accepts the
 * spec shape (`messages: ChatMessage[]`, `todos`) and also the agent crate's
 * own `persist::ThreadView` (`messages: StoredMessage[]` wrapping
 * `message: {role, content: parts[], tool_calls, tool_call_id, is_error}`,
 * `state: {todos}`), so the screen works whichever the shell returns.
 */
export function normalizeThreadView(raw: unknown): ThreadView {
  const r = isObj(raw) ? raw : {};
  const thread = (isObj(r.thread) ? r.thread : {}) as unknown as ThreadSummary;
  const messages: ChatMessage[] = (Array.isArray(r.messages) ? r.messages : []).map((m: unknown, i: number) => {
    const outer = isObj(m) ? m : {};
    const inner = isObj(outer.message) ? outer.message : outer;
    const calls = Array.isArray(inner.tool_calls)
      ? inner.tool_calls.filter(isObj).map((c) => ({
          id: str(c.id),
          name: str(c.name),
          arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
        }))
      : null;
    return {
      id: str(outer.id) || `m${i}`,
      role: (str(inner.role) || "assistant") as ChatRole,
      content: contentText(inner.content),
      tool_calls: calls && calls.length > 0 ? calls : null,
      tool_call_id: typeof inner.tool_call_id === "string" ? inner.tool_call_id : null,
      is_error: inner.is_error === true ? true : undefined,
      created_at: str(outer.created_at),
    };
  });
  const state = isObj(r.state) ? r.state : {};
  const todosRaw = Array.isArray(r.todos) ? r.todos : Array.isArray(state.todos) ? state.todos : [];
  const todos = todosRaw.filter(isObj).map((x) => ({ content: str(x.content), status: str(x.status) as TodoStatus }));
  const view: ThreadView = { thread, messages, todos };
  if (Array.isArray(r.tool_calls)) {
    view.tool_calls = r.tool_calls.filter(isObj).map((c) => ({
      id: str(c.id),
      name: str(c.name),
      arguments: typeof c.arguments === "string" ? c.arguments : JSON.stringify(c.arguments ?? {}),
      status: str(c.status),
      result: typeof c.result === "string" ? c.result : null,
    }));
  }
  return view;
}

// ---------------------------------------------------------------------------
// C. Desk lamp and offline models
// ---------------------------------------------------------------------------

/** `crates/lamp/src/state.rs` ConnectionState. */
export type ConnectionState = "disconnected" | "connecting" | "connected";

/** `crates/lamp/src/protocol.rs` Light: brightness 0–100 %, colour temperature 2700–6500 K. */
export interface Light {
  brightness: number;
  temperature_k: number;
  transition_ms: number;
}

export type Expression = "happy" | "encourage" | "thinking" | "listening" | "sad" | "surprised" | "sleep";
export type Gesture = "nod" | "shake" | "wave" | "point" | "celebrate";

/** Externally tagged: `"rest"` or `{ "moving": { gesture, speed } }`. */
export type ArmPose = "rest" | { moving: { gesture: Gesture; speed: number } };

export interface Card {
  title: string;
  lines: string[];
}

export interface ProjectorState {
  on: boolean;
  card: Card | null;
}

/** Externally tagged: `{ "button": "start" | "stop" }`, `"touch"`, `{ "presence": bool }`. */
export type DeviceEvent = { button: "start" | "stop" } | "touch" | { presence: boolean };

export interface DeviceInfo {
  protocol: number;
  model: string;
  firmware: string;
  serial: string;
  capabilities: string[];
}

export interface LampState {
  connection: ConnectionState;
  port: string | null;
  device: DeviceInfo | null;
  light: Light;
  expression: Expression;
  arm: ArmPose;
  projector: ProjectorState;
}

/** `lamp://notice` payload, tagged by `kind`. */
export type LampNotice =
  | { kind: "event"; event: DeviceEvent; at_unix_ms: number }
  | { kind: "connection"; state: ConnectionState; port: string | null; at_unix_ms: number }
  | { kind: "state"; state: LampState; at_unix_ms: number };

export function lampStatus(): Promise<LampState | null> {
  return call<LampState | null>("lamp_status");
}

export function lampConnect(port: string | null): Promise<LampState> {
  return call<LampState>("lamp_connect", { port });
}

export function lampDisconnect(): Promise<null> {
  return call<null>("lamp_disconnect");
}

export function lampPanelEvent(event: DeviceEvent): Promise<null> {
  return call<null>("lamp_panel_event", { event });
}

export interface ModelStatus {
  name: string;
  purpose: string;
  present: boolean;
  detail: string;
}

export type ModelPhase = "download" | "convert" | "verify" | "done" | "error";

export interface ModelProgress {
  name: string;
  phase: ModelPhase;
  done_bytes: number;
  total_bytes: number;
  message: string | null;
}

export function modelsStatus(): Promise<ModelStatus[]> {
  return call<ModelStatus[]>("models_status");
}

/** Fetches every missing model; `onProgress` gets progress through a Tauri `Channel`. */
export function modelsFetch(onProgress: (p: ModelProgress) => void): Promise<null> {
  return call<null>("models_fetch", () => {
    const channel = new Channel<ModelProgress>();
    channel.onmessage = onProgress;
    return { onProgress: channel };
  });
}
