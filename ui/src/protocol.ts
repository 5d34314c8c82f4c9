// Generated from the Rust types by `UPDATE_PROTOCOL_TS=1 cargo test -p deskmate-app --test app typescript`
// (crates/app/tests/app/typescript.rs). Do not edit by hand: change the Rust type and regenerate.
/* eslint-disable */

// The wire error

export type WireError = { code: string, message: string, params: Record<string, unknown>, };

// App status

export type AppStatus = { first_run: boolean, 
/**
 * The UI language set last (`zh-CN` until one is chosen).
 */
locale: string, data_dir: string, schema_version: number, };

// Chat

export type Thread = { id: string, profile_id: string | null, title: string, created_at: string, updated_at: string, };

export type ToolCallStatus = "pending" | "completed" | "error" | "interrupted";

export type StoredToolCall = { id: string, message_id: string, run_id: string | null, name: string, arguments: string, status: ToolCallStatus, result: string | null, started_at: string, finished_at: string | null, };

export type TodoStatus = "pending" | "in_progress" | "completed";

export type Todo = { 
/**
 * What to do, in a short sentence.
 */
content: string, status: TodoStatus, };

export type ChatRole = "system" | "user" | "assistant" | "tool";

export type ToolCallRef = { id: string, name: string, 
/**
 * The arguments as the model wrote them (JSON text).
 */
arguments: string, };

export type MessageView = { id: string, role: ChatRole, content: string, 
/**
 * The calls an assistant message asked for; `null` when none.
 */
tool_calls: Array<ToolCallRef> | null, 
/**
 * For a tool result: the call it answers.
 */
tool_call_id: string | null, 
/**
 * For a tool result: whether the tool failed (its card shows it).
 */
is_error: boolean, created_at: string, };

export type ChatRunStatus = "running" | "completed" | "cancelled" | "error" | "step_limit" | "interrupted";

export type RunSummary = { id: string, status: ChatRunStatus, model: string, model_calls: number, input_tokens: number, output_tokens: number, 
/**
 * US dollars; calls whose model has no known price count 0.
 */
cost_usd: number, subagent_runs: number, started_at: string, };

export type PendingApproval = { tool_call_id: string, run_id: string, tool: string, 
/**
 * The arguments as the model wrote them (JSON text).
 */
arguments: string, requested_at: string, };

export type ApprovalDecision = { "decision": "approve" } | { "decision": "edit", arguments: string, } | { "decision": "reject", reason: string, } | { "decision": "respond", answer: string, };

export type ApprovalAnswer = { tool_call_id: string, decision: ApprovalDecision, };

export type SubagentRunView = { run_id: string, 
/**
 * The subagent's name (e.g. `math-tutor`).
 */
subagent_type: string, 
/**
 * The lead's `task` call this run answered.
 */
tool_call_id: string, status: ChatRunStatus, model: string, 
/**
 * Its messages in order: the task it was given, its replies (with the
 * calls they asked for) and its tool results.
 */
messages: Array<MessageView>, 
/**
 * Its tool calls with their status and result.
 */
tool_calls: Array<StoredToolCall>, model_calls: number, input_tokens: number, output_tokens: number, 
/**
 * US dollars; calls whose model has no known price count 0.
 */
cost_usd: number, };

export type ThreadView = { thread: Thread, messages: Array<MessageView>, todos: Array<Todo>, 
/**
 * Every tool call with its status and result, for the tool cards.
 */
tool_calls: Array<StoredToolCall>, 
/**
 * The lead's runs, oldest first, each with what it cost: a parent sees
 * the thread's usage, and an `interrupted` last run can be continued.
 */
runs: Array<RunSummary>, 
/**
 * Tool calls the last run paused on, waiting for a parent.
 */
approvals: Array<PendingApproval>, 
/**
 * The subagents' runs, in the order they started: each is shown under
 * the `task` call that started it, so a reopened thread keeps what
 * every subagent said and did.
 */
subagents: Array<SubagentRunView>, };

export type RunIds = { thread_id: string, run_id: string, };

export type LlmSettingsView = { 
/**
 * `provider:model`, e.g. `openai:gpt-4o-mini`; `null` when none is configured.
 */
model: string | null, base_url: string | null, has_key: boolean, 
/**
 * What is sent where, and whether a parent agreed to it: model use
 * waits for that agreement.
 */
notice: ModelNoticeView, };

export type ModelNoticeView = { 
/**
 * Bumped when what is sent changes: an agreement to an older version
 * no longer counts.
 */
version: number, 
/**
 * Where the family's model calls go (the configured base URL or the
 * provider's default); `null` when no model is configured.
 */
endpoint: string | null, 
/**
 * Where replies are also sent to be moderated, when a parent set it.
 */
moderation: string | null, 
/**
 * The notice in Chinese and in English, with the addresses filled in.
 */
text_zh: string, text_en: string, 
/**
 * When a parent agreed to this version for this endpoint (RFC 3339);
 * `null`: not agreed, so nothing is sent.
 */
agreed_at: string | null, };

export type KeepsakeFormat = "png" | "pdf";

export type GoalOutcome = { 
/**
 * `reviews_per_week` or `new_per_day`.
 */
kind: string, 
/**
 * What the week needed (a daily goal times seven).
 */
target: number, done: number, met: boolean, };

export type KeepsakeWritten = { profile_id: string, name: string, 
/**
 * The Monday of the week.
 */
week_of: string, file: string, format: KeepsakeFormat, bytes: number, 
/**
 * True when every goal of the week was met: the page is a certificate.
 */
certificate: boolean, goals: Array<GoalOutcome>, };

export type JsonPatchOpKind = "add" | "remove" | "replace" | "move" | "copy" | "test";

export type JsonPatchOp = { op: JsonPatchOpKind, path: string, value?: unknown, from?: string, };

export type Interrupt = { 
/**
 * Answered by this id (here: the waiting tool call's id).
 */
id: string, 
/**
 * Why the run stopped, e.g. `tool_approval`.
 */
reason: string, 
/**
 * A prompt for whoever answers.
 */
message?: string, 
/**
 * The tool call this interrupt is about, for a tool approval.
 */
toolCallId?: string, 
/**
 * The subagent run that holds the call; absent when the run itself does.
 */
subagentRunId?: string, 
/**
 * Extra facts: here the tool's name and arguments.
 */
metadata?: unknown, };

export type RunFinishedOutcome = { "type": "success" } | { "type": "interrupt", interrupts: Array<Interrupt>, } | { "type": "cancelled" };

export type AgUiEvent = { "type": "RUN_STARTED", threadId: string, runId: string, } | { "type": "RUN_FINISHED", threadId: string, runId: string, result?: unknown, 
/**
 * Why the run ended (AG-UI 1.0): absent or `success`, `interrupt`
 * (paused for a parent; the interrupts say what waits), `cancelled`.
 */
outcome?: RunFinishedOutcome, } | { "type": "RUN_ERROR", message: string, code?: string, } | { "type": "STEP_STARTED", stepName: string, } | { "type": "STEP_FINISHED", stepName: string, } | { "type": "TEXT_MESSAGE_START", messageId: string, role: string, } | { "type": "TEXT_MESSAGE_CONTENT", messageId: string, delta: string, } | { "type": "TEXT_MESSAGE_END", messageId: string, } | { "type": "TOOL_CALL_START", toolCallId: string, toolCallName: string, parentMessageId?: string, } | { "type": "TOOL_CALL_ARGS", toolCallId: string, delta: string, } | { "type": "TOOL_CALL_END", toolCallId: string, } | { "type": "TOOL_CALL_RESULT", messageId: string, toolCallId: string, content: string, role?: string, } | { "type": "STATE_SNAPSHOT", snapshot: unknown, } | { "type": "STATE_DELTA", delta: Array<JsonPatchOp>, } | { "type": "CUSTOM", name: string, value: unknown, };

// Practice events

export type TaskId = { task_id: string, };

export type LevelEvent = { practice_id: string, 
/**
 * 0..1
 */
level: number, };

export type PartialEvent = { practice_id: string, text: string, };

export type ReviewsDueEvent = { profile_id: string, count: number, };

// Offline speech models

export type ModelStatus = { name: string, purpose: string, present: boolean, 
/**
 * What the doctor found (a path, or what is wrong).
 */
detail: string, };

export type ModelPhase = "download" | "convert" | "verify" | "done" | "error";

export type ModelProgress = { 
/**
 * The model's name, or `all` for a failure of the whole fetch.
 */
name: string, phase: ModelPhase, done_bytes: number, total_bytes: number, message: string | null, };

// The CLI's check output

export type CheckedError = { 
/**
 * omission | insertion | substitution | order
 */
type: string, kind: string, 
/**
 * 1-based line of the reference.
 */
line: number, 
/**
 * 0-based unit offset within the line.
 */
offset: number, expected: string, actual: string, };

export type CheckedLine = { 
/**
 * The request's `id`, echoed as given (any JSON value; `null` when absent).
 */
id: unknown, accuracy: number, passed: boolean, units: number, correct: number, errors: Array<CheckedError>, };

export type LineFailure = { 
/**
 * `line N: why`.
 */
error: string, id: unknown, };

export type StageTimings = { decode_ms: number, vad_ms: number, asr_ms: number, check_ms: number, 
/**
 * Decode + VAD + ASR + check (model loading excluded, reported as load_ms).
 */
total_ms: number, load_ms: number, };

// Family sync

export type RecordKind = "attempt" | "profile" | "material" | "goal" | "setting" | "report" | "error_pattern" | "practice_session" | "thread" | "run" | "message" | "tool_call" | "memory" | "routine";

export type RoundView = { 
/**
 * `synced`, `idle` or `failed`.
 */
round: string, 
/**
 * When the round ended (RFC 3339 UTC), stamped by the store.
 */
at: string | null, 
/**
 * Changes sent and applied (a round that synced).
 */
pushed: number, applied: number, 
/**
 * Why it did not sync (idle or failed), in plain words.
 */
error: string | null, 
/**
 * Failed rounds in a row.
 */
failures: number, 
/**
 * The wait before the next try (failed rounds), ms.
 */
retry_in_ms: number | null, };

export type SyncView = { 
/**
 * Signed in to a sync server (a parent's account or a paired device).
 */
signed_in: boolean, server_url: string | null, family_id: string | null, device_id: string | null, 
/**
 * A parent turned sync on.
 */
enabled: boolean, 
/**
 * Recitation transcripts sync too.
 */
transcripts: boolean, 
/**
 * Changes waiting to be sent.
 */
pending: number, 
/**
 * The last round that reached the server (RFC 3339 UTC).
 */
last_sync_at: string | null, 
/**
 * Why the last round failed, in plain words.
 */
last_error: string | null, 
/**
 * This process runs the background loop.
 */
running: boolean, 
/**
 * The background loop's last round, whichever process ran it.
 */
background: RoundView | null, 
/**
 * What syncs, in the order a device first sends it.
 */
kinds: Array<RecordKind>, };

export type SignedIn = { family_id: string, device_id: string, };

export type SignupRequest = { email: string, password: string, 
/**
 * The family's display name ("The Lis"); defaults to the email's name.
 */
family_name: string | null, 
/**
 * What this device is called in the device list ("desktop").
 */
device_name: string, };

export type LoginRequest = { email: string, password: string, device_name: string, };

export type PairRequest = { code: string, device_name: string, };

export type PairingCode = { code: string, 
/**
 * RFC 3339 UTC.
 */
expires_at: string, };

export type AccountStatus = { family_id: string, family_name: string, device_id: string, account_id: string | null, email: string | null, 
/**
 * `owner` (signed the family up), `parent` (joined by invitation) or
 * absent for a paired device.
 */
role: string | null, };

export type DeviceView = { id: string, name: string, 
/**
 * `parent` (signed in with a password) or `paired` (joined with a code).
 */
kind: string, 
/**
 * RFC 3339 UTC.
 */
created_at: string, last_seen_at: string | null, };

// A child as a whole, for parents: questions with a chart, usage, limits, notices, export and delete

export type ChartKind = "line" | "bar" | "pie";

export type ChartSeries = { name: string, values: Array<number>, };

export type Chart = { kind: ChartKind, title: string, labels: Array<string>, series: Array<ChartSeries>, };

export type ProgressAnswer = { 
/**
 * Which built-in question answered it (`accuracy_this_week`, …), or
 * `model` when the configured model wrote its own queries.
 */
question: string, text: string, chart: Chart | null, };

export type DayUsage = { profile_id: string, profile_name: string, 
/**
 * The child's local date, `YYYY-MM-DD`.
 */
date: string, 
/**
 * The companion's answers started that day (subagents' not counted apart).
 */
runs: number, model_calls: number, input_tokens: number, output_tokens: number, cached_input_tokens: number, 
/**
 * US dollars; calls whose price is unknown count 0 (see `unpriced_calls`).
 */
cost_usd: number, 
/**
 * Calls stored without a cost (a model with no known price).
 */
unpriced_calls: number, 
/**
 * Seconds of chat: the gaps between the day's messages, long pauses
 * left out (`deskmate_orchestrator::usage`).
 */
chat_seconds: number, };

export type RunUsage = { run_id: string, thread_id: string, profile_id: string, model: string, status: string, started_at: string, model_calls: number, input_tokens: number, output_tokens: number, cached_input_tokens: number, cost_usd: number, };

export type UsageReport = { days: Array<DayUsage>, runs: Array<RunUsage>, };

export type QuietHours = { from: string, to: string, };

export type Limits = { 
/**
 * Minutes of chat with the companion a day.
 */
chat_minutes?: number, 
/**
 * Model calls a day.
 */
model_calls?: number, 
/**
 * US dollars a day.
 */
cost_usd?: number, quiet?: QuietHours, };

export type NoticeKind = "limit_reached" | "quiet_hours" | "reply_replaced" | "routine_note";

export type Notice = { id: string, profile_id: string, kind: NoticeKind, 
/**
 * The child's local date it happened on.
 */
day: string, 
/**
 * Which limit and the day's figure (`limit`, `value`, `max`), or why a
 * reply was replaced (`message_id`, `reasons`), and `message`: the
 * core's English sentence.
 */
detail: Record<string, unknown>, 
/**
 * The conversation, for a replaced reply.
 */
thread_id: string | null, created_at: string, read_at: string | null, };

export type ReplacedReply = { notice: Notice, 
/**
 * The message that was replaced.
 */
message_id: string, 
/**
 * The model's own words, never shown to the child.
 */
original: string, 
/**
 * The categories the check found (`personal_details`, `violence`, …).
 */
reasons: Array<string>, thread: ThreadView, };

export type TableRowCount = { table: string, rows: number, };

export type ChildExported = { profile_id: string, name: string, 
/**
 * The zip file written.
 */
file: string, 
/**
 * Rows per table (every table that can hold a child's rows, empty ones too).
 */
tables: Array<TableRowCount>, 
/**
 * Files of the child's chat workspaces put in the zip.
 */
workspace_files: number, };

export type ChildDeleted = { profile_id: string, name: string, 
/**
 * Rows removed per table (tables that held none left out).
 */
tables: Array<TableRowCount>, 
/**
 * Folders and files removed from the data directory.
 */
paths_removed: Array<string>, 
/**
 * True when sync is on: the deletion waits in the outbox for the
 * family's other devices.
 */
sent_to_family: boolean, };

// Parents' routines

export type NodePosition = { x: number, y: number, };

export type NodeKind = { "type": "start" } | { "type": "end" } | { "type": "agent", agent: string, prompt: string, } | { "type": "tool", tool: string, args: unknown, } | { "type": "condition", branches: Array<Branch>, default: string | null, } | { "type": "recite", material: string, } | { "type": "notify_parent", message: string, };

export type RoutineNode = { 
/**
 * Unique within the routine; what `next` and branches point at.
 */
id: string, 
/**
 * The node that follows; absent on `end` and `condition`.
 */
next?: string | null, 
/**
 * Where the editor drew the node; absent in routines written by hand
 * (the editor lays those out by depth) and ignored by runs.
 */
position?: NodePosition, } & ({ "type": "start" } | { "type": "end" } | { "type": "agent", agent: string, prompt: string, } | { "type": "tool", tool: string, args: unknown, } | { "type": "condition", branches: Array<Branch>, default: string | null, } | { "type": "recite", material: string, } | { "type": "notify_parent", message: string, });

export type Branch = { keyword: string, to: string, };

export type Routine = { name: string, description: string, nodes: Array<RoutineNode>, 
/**
 * The children (profile ids) a parent assigned it to: it is on their
 * plan each day. Absent in routines written by hand: assigned to none.
 * (Left out of the JSON when empty: the window reads a missing list as
 * none.)
 */
children?: Array<string>, };

export type RoutineProblem = { 
/**
 * A stable code (`routine.no_start`, `routine.cycle`, …).
 */
code: string, 
/**
 * The node it is about, when there is one (the editor marks it).
 */
node?: string | null, 
/**
 * What is wrong, in plain words.
 */
message: string, };

export type RoutinePart = { name: string, description: string, };

export type RoutineParts = { agents: Array<RoutinePart>, tools: Array<RoutinePart>, };

export type RoutineEvent = { "type": "node_started", run_id: string, node: string, kind: string, } | { "type": "node_output", run_id: string, node: string, text: string, } | { "type": "node_finished", run_id: string, node: string, } | { "type": "waiting", run_id: string, node: string, reason: string, } | { "type": "finished", run_id: string, } | { "type": "failed", run_id: string, node: string, message: string, };

export type RoutineStep = { node: string, output: string, };

export type RoutineRunView = { id: string, routine: string, input: string, 
/**
 * running | waiting | finished | failed
 */
status: string, 
/**
 * The node the run is at (the next to run, or the one it waits on).
 */
at?: string | null, 
/**
 * What each node that finished said, in order.
 */
steps: Array<RoutineStep>, };

// Family and library (deskmate-store)

export type ProfileKind = "parent" | "child";

export type Profile = { id: string, kind: ProfileKind, name: string, grade: number | null, locale: string, time_zone: string, has_pin: boolean, created_at: string, updated_at: string, };

export type NewProfile = { kind?: ProfileKind | null, name: string, grade?: number | null, locale?: string | null, time_zone?: string | null, pin?: string | null, };

export type MaterialSource = "builtin" | "custom";

export type Material = { id: string, slug: string | null, source: MaterialSource, lang: string, title: string, author: string | null, dynasty: string | null, grade: number | null, level: number | null, body: string, created_at: string, updated_at: string, };

export type NewMaterial = { slug?: string | null, lang: string, title: string, author?: string | null, dynasty?: string | null, grade?: number | null, level?: number | null, body: string, };

export type MaterialFilter = { lang?: string | null, grade?: number | null, 
/**
 * Case-insensitive substring of title, author or body.
 */
search?: string | null, };

// Recitation (deskmate-recite, deskmate-orchestrator, deskmate-app)

export type Mode = "voice" | "text";

export type ErrorType = "omission" | "insertion" | "substitution" | "order";

export type ErrorKind = "line" | "part" | "extra" | "tone" | "sound" | "homophone" | "spelling" | "other" | "swap" | "move";

export type RecitationError = { type: ErrorType, kind: ErrorKind, 
/**
 * 1-based line (sentence) of the reference.
 */
line: number, 
/**
 * 0-based unit offset within the line.
 */
offset: number, 
/**
 * What the reference says here (empty for an insertion).
 */
expected: string, 
/**
 * What was recited here (empty for an omission).
 */
actual: string, 
/**
 * Short label for a child or parent, Chinese.
 */
label_zh: string, 
/**
 * Short label, English.
 */
label_en: string, 
/**
 * Speech recognition was unsure of the recited units involved (only
 * with per-unit confidences): the child may well have been right.
 * Uncertain errors still count in accuracy but are said gently and not
 * recorded as error patterns.
 */
uncertain: boolean, };

export type FeedbackView = { zh: string, en: string, 
/**
 * The memory tip for an error seen before, if any.
 */
tip_zh: string | null, tip_en: string | null, };

export type PracticeResult = { attempt_id: string, attempt_number: number, accuracy: number, passed: boolean, units: number, correct: number, transcript: string, errors: Array<RecitationError>, 
/**
 * The reference's lines; an error's `line` is an index + 1.
 */
lines: Array<string>, feedback: FeedbackView, 
/**
 * When the review schedule next asks for this material (RFC 3339),
 * if this attempt scheduled one.
 */
next_review_at: string | null, review_interval_days: number | null, 
/**
 * The lines (1-based) the verdict could not hear clearly and the child
 * may say again, each once: a retake of just that line is merged into
 * this same attempt.
 */
lines_to_say_again: Array<number>, };

export type PracticeState = { "state": "idle" } | { "state": "ready" } | { "state": "listening" } | { "state": "checking", task_id: string, } | { "state": "feedback", attempt_id: string, accuracy: number, passed: boolean, } | { "state": "done", attempt_id: string, accuracy: number, } | { "state": "retaking", attempt_id: string, 
/**
 * The line said again, 1-based.
 */
line: number, task_id: string, accuracy: number, passed: boolean, };

export type PracticeView = { id: string, profile_id: string, material: Material, mode: Mode, is_review: boolean, attempts: number, state: PracticeState, last_result: PracticeResult | null, };

export type TaskStatus = "listening" | "queued" | "transcribing" | "checking" | "done" | "failed";

export type TaskEvent = { practice_id: string, task_id: string, status: TaskStatus, 
/**
 * Why the task failed (with `Failed`): a code the window has words
 * for in the child's language, and the core's English.
 */
error: WireError | null, result: PracticeResult | null, };

export type DueReview = { material_id: string, title: string, lang: string, next_review_at: string, 
/**
 * Days past the due date in the child's time zone (0 = due today).
 */
overdue_days: number, interval_days: number, reps: number, lapses: number, stability: number, };

// Reports

export type ReportType = "daily" | "weekly";

export type PeriodSummary = { attempts: number, minutes: number, 
/**
 * Mean accuracy of the attempts, `None` without attempts.
 */
average_accuracy: number | null, passes: number, 
/**
 * Materials passed for the first time ever in this period.
 */
first_passes: number, materials_practised: number, 
/**
 * Materials a review scheduled at least three weeks ahead in this period.
 */
materials_mastered: number, reviews: number, };

export type Trend = { attempts: number, minutes: number, 
/**
 * Percentage points; `None` when either period has no attempts.
 */
average_accuracy: number | null, 
/**
 * `up`, `down`, `steady` (within 2 points), or `new` (nothing to compare).
 */
direction: string, };

export type WeakPattern = { material_id: string, title: string, error_type: string, line: number, expected: string, actual: string, occurrences: number, };

export type WeakMaterial = { material_id: string, title: string, attempts: number, average_accuracy: number, passed: boolean, };

export type DaySummary = { date: string, attempts: number, minutes: number, average_accuracy: number | null, };

export type Report = { profile_id: string, report_type: ReportType, 
/**
 * The day, or the Monday of the week, in the child's time zone.
 */
report_date: string, time_zone: string, period_start: string, period_end: string, summary: PeriodSummary, previous: PeriodSummary, trend: Trend, top_patterns: Array<WeakPattern>, weakest_materials: Array<WeakMaterial>, 
/**
 * Weekly reports: each day of the week.
 */
days?: Array<DaySummary>, generated_at: string, };

export type Purpose = "learn" | "review";

export type ListedAttempt = { id: string, material_id: string, title: string, mode: string, accuracy: number, passed: boolean, purpose: Purpose, 
/**
 * The attempt's number within its practice session.
 */
attempt_no: number, created_at: string, };

// Settings: doctor and the feedback voice

export type Status = "ok" | "warn" | "fail";

export type Check = { name: string, status: Status, detail: string, fix: string | null, };

export type CloudVoice = { 
/**
 * e.g. `https://api.openai.com/v1` (the service's `/v1`).
 */
base_url: string, 
/**
 * e.g. `tts-1`.
 */
model: string, 
/**
 * e.g. `alloy` (used for both languages).
 */
voice: string, 
/**
 * Whose API key to send: a chat provider name (`deskmate llm key
 * PROVIDER`); none for a service without keys.
 */
key_provider: string | null, };

export type VoiceTest = { text: string, 
/**
 * The synthesizer that spoke (`openai:…` or `espeak-ng@…`).
 */
backend: string, 
/**
 * Why the cloud voice was not used although configured.
 */
fell_back: string | null, seconds: number, };

// The desk lamp (deskmate-lamp)

export type ConnectionState = "disconnected" | "connecting" | "connected";

export type Capability = "light" | "face" | "arm" | "projector" | "microphone" | "speaker" | "buttons" | "touch" | "presence";

export type DeviceInfo = { protocol: number, model: string, firmware: string, serial: string, capabilities: Array<Capability>, };

export type Light = { brightness: number, temperature_k: number, transition_ms: number, };

export type Expression = "happy" | "encourage" | "thinking" | "listening" | "sad" | "surprised" | "sleep";

export type Gesture = "nod" | "shake" | "wave" | "point" | "celebrate";

export type ArmPose = "rest" | { "moving": { gesture: Gesture, speed: number, } };

export type Card = { title: string, lines: Array<string>, };

export type ProjectorState = { on: boolean, card: Card | null, };

export type Button = "start" | "stop";

export type DeviceEvent = { "button": Button } | "touch" | { "presence": boolean };

export type LampState = { connection: ConnectionState, 
/**
 * The port in use, or last used.
 */
port: string | null, 
/**
 * What the lamp said about itself at the last handshake.
 */
device: DeviceInfo | null, light: Light, expression: Expression, arm: ArmPose, projector: ProjectorState, };

export type LampNotice = { "kind": "event", event: DeviceEvent, at_unix_ms: number, } | { "kind": "connection", state: ConnectionState, port: string | null, at_unix_ms: number, } | { "kind": "state", state: LampState, at_unix_ms: number, };

// The one entry for what a child says (deskmate-orchestrator)

export type Intent = "chat" | "recite" | "homework" | "plan" | "continue_current" | "exit_current";

export type Confidence = "low" | "mid" | "high";

export type RoutedBy = "rules" | "model";

export type Scene = "chat" | "recite" | "homework" | "plan";

export type Decision = { "decision": "continue" } | { "decision": "switch", to: Scene, material_id: string | null, } | { "decision": "ask_switch", to: Scene, material_id: string | null, } | { "decision": "exit" } | { "decision": "reject", reason: string, };

export type Timings = { speech_us: number, route_us: number, decide_us: number, act_us: number, total_us: number, };

export type MaterialRef = { id: string, title: string, };

export type TaskKind = "review" | "finish" | "new" | "weekly_reviews" | "homework_redo" | "routine";

export type PlanTask = { kind: TaskKind, 
/**
 * The material to recite for it, when there is one.
 */
material_id: string | null, title: string | null, 
/**
 * The routine to run for it (a `routine` task).
 */
routine?: string, done: boolean, 
/**
 * For a count (this week's reviews): how many so far, of how many.
 */
count: number | null, target: number | null, 
/**
 * The task in words, for the child.
 */
text_zh: string, text_en: string, };

export type Plan = { profile_id: string, 
/**
 * The child's local day, YYYY-MM-DD.
 */
day: string, tasks: Array<PlanTask>, 
/**
 * Tasks done, of all.
 */
done: number, total: number, };

export type GoalKind = "new_per_day" | "reviews_per_week";

export type Goal = { id: string, profile_id: string, kind: GoalKind, target: number, created_at: string, updated_at: string, };

export type Help = "hint" | "explanation" | "answer";

export type HomeworkMark = { question: string, child_answer: string, correct: boolean, };

export type HomeworkCard = { 
/**
 * `mistake`, `summary`, `redo` or `idle`.
 */
step: string, subject: string, 
/**
 * Questions on the sheet, and how many were right.
 */
total: number, correct: number, 
/**
 * Mistakes on the sheet, and which one (1-based) is shown.
 */
mistakes: number, mistake_number: number | null, question: string | null, child_answer: string | null, help: Help | null, hint: string | null, explanation: string | null, 
/**
 * Only when a parent allows answers and the child asked for it.
 */
correct_answer: string | null, 
/**
 * Whether a parent allows the correct answers to be shown.
 */
answers_allowed: boolean, 
/**
 * Every question of the sheet, marked right or wrong, in its order
 * (empty when no sheet is being walked).
 */
marks: Array<HomeworkMark>, };

export type LampCue = { "do": "face", expression: Expression, } | { "do": "gesture", gesture: Gesture, } | { "do": "show", card: Card, };

export type Suggestion = { label_zh: string, label_en: string, 
/**
 * A button (`screen:yes`, `screen:no`, `screen:next`), or
 */
button: string | null, 
/**
 * words to say through the entry.
 */
says: string | null, };

export type SayResponse = { 
/**
 * The request's id; its decision is logged under it.
 */
trace_id: string, 
/**
 * The scene the child is in now.
 */
scene: Scene, intent: Intent, confidence: Confidence, 
/**
 * Where the intent came from: the offline rules or the model.
 */
routed_by: RoutedBy, decision: Decision, 
/**
 * Why, in the guardrails' words (for parents and traces).
 */
reason: string, 
/**
 * What was heard, when the child spoke (a recording).
 */
heard: string | null, 
/**
 * Why nothing could be done, coded (`speech.nothing_heard`,
 * `speech.audio`, `models.needed`, …); `text_zh`/`text_en` say it in
 * plain words.
 */
error: WireError | null, 
/**
 * What to say to the child, in both languages.
 */
text_zh: string, text_en: string, material: MaterialRef | null, 
/**
 * The practice opened or continued, in the recite scene.
 */
practice: PracticeView | null, 
/**
 * Today's due reviews not done yet, in the plan scene (titles).
 */
due: Array<string>, 
/**
 * Today's plan with each task's progress, in the plan scene.
 */
plan: Plan | null, 
/**
 * The homework scene's card: the sheet's count, the mistake in front of
 * the child with the help given so far, or the summary. Left out of
 * the JSON outside the homework scene.
 */
homework?: HomeworkCard, 
/**
 * The companion (a model) should answer: chat, and homework in words.
 */
needs_model: boolean, 
/**
 * The companion takes the request from here (a model is set up): a
 * front end runs it on the child's words with the app's
 * `answer_handoff`, which hangs the run under this request's trace and
 * ends the chat scene's wait.
 */
handoff: boolean, 
/**
 * The child's scene session (a new one each local day).
 */
session_id: string, 
/**
 * Where the scene is now: the chat's step (`idle`, `clarify`,
 * `handoff_wait`), the practice's state, the homework walk's step, or
 * `today` in the plan.
 */
phase: string, 
/**
 * Read the answer aloud: the child spoke or pressed a lamp button.
 */
need_tts: boolean, 
/**
 * What the lamp does (a face, a gesture, a card): a connected lamp
 * acts them out.
 */
lamp: Array<LampCue>, 
/**
 * One-tap replies the child may give next.
 */
suggestions: Array<Suggestion>, timings: Timings, };

export type Talking = { "kind": "level", level: number, } | { "kind": "partial", text: string, } | { "kind": "thinking" };

export type SpanOutcome = "ok" | "error";

export type TraceSpan = { 
/**
 * The request's trace id (its decision's id).
 */
trace_id: string, 
/**
 * 16 hex digits.
 */
span_id: string, 
/**
 * The span this one is part of; none for the root `request`.
 */
parent_span_id: string | null, name: string, 
/**
 * When it started, unix microseconds.
 */
started_at: number, duration_us: number, outcome: SpanOutcome, 
/**
 * The coded error of a failed span (`homework.model_failed`, …).
 */
error_code: string | null, 
/**
 * Strings and integers: `intent`, `confidence`, `decision`, `reason`,
 * `model`, …
 */
attributes: Record<string, string | number>, };

export type Trace = { trace_id: string, profile_id: string, input: string, scene_before: string, intent: string, confidence: string, decision: unknown, reason: string, scene_after: string, 
/**
 * What the child was told (Chinese).
 */
said: string, 
/**
 * Microseconds per stage: route, decide, act, total.
 */
timings: unknown, at: string, 
/**
 * What happened, as spans: the root `request` first, then each stage
 * by its start (none for a request logged before spans were kept).
 */
spans: Array<TraceSpan>, };

// What the companion knows: knowledge bases, memories, MCP servers, files handed over

export type FileUpload = { name: string, data_base64: string, };

export type KnowledgeBaseView = { name: string, 
/**
 * Made by Deskmate (the poem library), not by a parent: it cannot be changed.
 */
builtin: boolean, documents: number, chunks: number, };

export type KnowledgeDocumentView = { knowledge_base: string, 
/**
 * The file name it was added from (what a passage cites).
 */
source: string, title: string, chunks: number, chars: number, };

export type KnowledgeProgress = { 
/**
 * The document's file name.
 */
source: string, done_chunks: number, total_chunks: number, };

export type MemoryKind = "likes" | "finds_hard" | "working_towards" | "other";

export type MemorySource = "explicit" | "conversation" | "parent";

export type Memory = { id: string, profile_id: string, kind: MemoryKind, text: string, source: MemorySource, 
/**
 * The conversation it came from, if any.
 */
thread_id: string | null, created_at: string, updated_at: string, };

export type McpTransport = { "type": "stdio", command: string, args: Array<string>, 
/**
 * Variables added to the child's minimal environment.
 */
env: { [key in string]: string }, } | { "type": "http", url: string, };

export type McpServer = { name: string, transport: McpTransport, enabled: boolean, 
/**
 * Its tools run without a parent's approval.
 */
trusted: boolean, 
/**
 * The profiles (ids) whose runs may use it.
 */
profiles: Array<string>, 
/**
 * How long one call may take, in seconds (60 when unset).
 */
timeout_secs?: number | null, 
/**
 * A bearer token for it is in the OS keyring (`mcp:<name>`).
 */
has_token: boolean, };

export type McpToolView = { 
/**
 * `mcp__<server>__<tool>`.
 */
name: string, description: string, };

// The one event stream: every channel with its payload

export type PlaybackEvent = { "event": "started", id: number, } | { "event": "finished", id: number, } | { "event": "interrupted", id: number, } | { "event": "dropped", id: number, };

export type VoiceNotice = { "kind": "queued", id: number, text: string, } | { "kind": "playback", playback: PlaybackEvent, } | { "kind": "unavailable", reason: string, };

export type ReminderEvent = { profile_id: string, title: string, body: string, };

export type AppEvent = { "channel": "practice://task", "payload": TaskEvent } | { "channel": "practice://level", "payload": LevelEvent } | { "channel": "practice://partial", "payload": PartialEvent } | { "channel": "lamp://notice", "payload": LampNotice } | { "channel": "voice://notice", "payload": VoiceNotice } | { "channel": "reviews://due", "payload": ReviewsDueEvent } | { "channel": "reviews://reminder", "payload": ReminderEvent };

// Every code a failure can carry (WireError.code); ui/src/errors.ts has words for each

export const ERROR_CODES = [
  "ask.unknown_question",
  "chat.awaiting_approval",
  "chat.busy",
  "chat.empty_message",
  "chat.io",
  "chat.not_resumable",
  "chat.sandbox",
  "chat.thread_not_found",
  "config",
  "conflict",
  "data_dir.not_writable",
  "data_dir.unusable",
  "db.damaged",
  "db.error",
  "db.migration_failed",
  "db.not_deskmate",
  "db.open_failed",
  "db.schema_too_new",
  "error",
  "export.file_exists",
  "homework.model_failed",
  "homework.model_reply",
  "homework.not_an_image",
  "homework.photo_too_large",
  "homework.photo_unreadable",
  "homework.too_many_photos",
  "internal.poisoned",
  "internal.thread",
  "invalid",
  "knowledge.built_in",
  "knowledge.duplicate",
  "knowledge.empty",
  "knowledge.model_missing",
  "knowledge.unreadable",
  "knowledge.unsupported",
  "lamp.disconnected",
  "lamp.discovery",
  "lamp.handshake",
  "lamp.invalid",
  "lamp.link_lost",
  "lamp.link_occupied",
  "lamp.not_found",
  "lamp.open_failed",
  "lamp.rejected",
  "lamp.simulator",
  "lamp.stopped",
  "lamp.timeout",
  "lamp.tool_arguments",
  "lamp.unexpected_reply",
  "lamp.unknown_tool",
  "library.damaged",
  "limits.quiet_hours",
  "limits.reached",
  "llm.auth",
  "llm.bad_request",
  "llm.config",
  "llm.context_overflow",
  "llm.idle_timeout",
  "llm.network",
  "llm.no_model",
  "llm.not_found",
  "llm.notice_not_agreed",
  "llm.protocol",
  "llm.quota",
  "llm.rate_limited",
  "llm.server",
  "material.body_empty",
  "material.body_too_long",
  "mcp.server_failed",
  "models.checksum",
  "models.download",
  "models.fetch_failed",
  "models.format",
  "models.io",
  "models.manifest",
  "models.missing",
  "models.needed",
  "not_found",
  "pin.locked",
  "pin.wrong",
  "plan.goal_unreadable",
  "practice.damaged",
  "practice.not_now",
  "profile.name_taken",
  "recite.confidences",
  "recite.reference_empty",
  "recite.reference_too_long",
  "recite.transcript_too_long",
  "speech.asr",
  "speech.audio",
  "speech.microphone",
  "speech.microphone_lost",
  "speech.not_the_material",
  "speech.nothing_heard",
  "speech.unclear",
  "speech.vad",
  "sync.bad_request",
  "sync.conflict",
  "sync.forbidden",
  "sync.keyring",
  "sync.not_found",
  "sync.not_signed_in",
  "sync.off",
  "sync.offline",
  "sync.rate_limited",
  "sync.refused",
  "sync.unauthorized",
  "voice.failed",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

// Every code a routine's problem can carry (RoutineProblem.code); the editor has words for each

export const ROUTINE_PROBLEM_CODES = [
  "routine.no_name",
  "routine.no_id",
  "routine.duplicate_id",
  "routine.no_start",
  "routine.many_starts",
  "routine.no_end",
  "routine.end_has_next",
  "routine.condition_has_next",
  "routine.no_branches",
  "routine.empty_keyword",
  "routine.no_default",
  "routine.missing_next",
  "routine.incomplete",
  "routine.unknown_node",
  "routine.unreachable",
  "routine.cycle",
  "routine.no_way_to_end",
] as const;

export type RoutineProblemCode = (typeof ROUTINE_PROBLEM_CODES)[number];
