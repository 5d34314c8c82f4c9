/**
 * Typed layer over the Tauri commands of the Rust core.
 *
 * One function per command. Argument keys are camelCase here; Tauri maps them
 * to the Rust snake_case parameter names. The argument and result types are
 * generated from the Rust types (./protocol.ts; regenerate with
 * `UPDATE_PROTOCOL_TS=1 cargo test -p deskmate-app --test app typescript`), so
 * they are exactly what the shell sends, snake_case fields and all. Every
 * function rejects with a plain-language string that can be shown to the
 * user as-is (the core's coded `WireError`, said by ./errors.ts).
 */
import { Channel, invoke } from "@tauri-apps/api/core";
import { errorText } from "./errors";
import type {
  AgUiEvent,
  ApprovalAnswer,
  SayResponse,
  AppStatus,
  Check,
  CloudVoice,
  DeviceEvent,
  DueReview,
  FeedbackView,
  FileUpload,
  LampState,
  ListedAttempt,
  LlmSettingsView,
  ModelNoticeView,
  KeepsakeFormat,
  KeepsakeWritten,
  Material,
  MaterialFilter,
  MessageView,
  Mode,
  ModelProgress,
  ModelStatus,
  NewMaterial,
  NewProfile,
  Plan,
  Goal,
  GoalKind,
  Trace,
  PracticeView,
  Profile,
  Report,
  ReportType,
  RunIds,
  Status,
  Talking,
  TaskId,
  Thread,
  ThreadView,
  ToolCallRef,
  VoiceTest,
  AccountStatus,
  DeviceView,
  PairingCode,
  SignedIn,
  SyncView,
  SignupRequest,
  LoginRequest,
  PairRequest,
} from "./protocol";

export type * from "./protocol";

/** The languages of materials and feedback (a material's `lang` is one of these). */
export type Lang = "zh" | "en";
/** The UI languages (`AppStatus.locale` is one of these once the UI has set it). */
export type Locale = "zh-CN" | "en";

/** Names the screens use for the generated types. */
export type CheckStatus = Status;
export type PracticeMode = Mode;
export type PracticeFeedback = FeedbackView;
export type TaskRef = TaskId;
export type ReportKind = ReportType;
export type ThreadSummary = Thread;
export type ChatToolCall = ToolCallRef;
export type ChatSendResult = RunIds;
export type LlmSettings = LlmSettingsView;
export type ChatMessage = MessageView;

export async function call<T>(cmd: string, args?: Record<string, unknown> | (() => Record<string, unknown>)): Promise<T> {
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

/** What a child said, through the one entry: routed to a scene and acted on. */
export function say(profileId: string, text: string): Promise<SayResponse> {
  return call<SayResponse>("say", { profileId, text });
}

/** A screen button (`screen:yes`, `screen:no`, `screen:next`, `screen:again`) through the one entry: the reply it stands for where the child is. */
export function sayButton(profileId: string, button: string): Promise<SayResponse> {
  return call<SayResponse>("say_button", { profileId, button });
}

/** One photo for `sayPhotos`: the file's name and its bytes in base64. */
export interface PhotoUpload {
  name: string;
  data: string;
}

/**
 * Photos of homework (with any words typed along) through the one entry;
 * the same response as `say`, with the homework card. A photo the core
 * cannot use comes back as the response's coded `error`.
 */
export function sayPhotos(profileId: string, photos: PhotoUpload[], text: string): Promise<SayResponse> {
  return call<SayResponse>("say_photos", { profileId, photos, text });
}

/** Reads picked files into what `sayPhotos` sends (base64, in chunks so large photos do not overflow the stack). */
export async function readPhotos(files: File[]): Promise<PhotoUpload[]> {
  return Promise.all(
    files.map(async (f) => {
      const bytes = new Uint8Array(await f.arrayBuffer());
      let bin = "";
      for (let i = 0; i < bytes.length; i += 0x8000) {
        bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
      }
      return { name: f.name, data: btoa(bin) };
    }),
  );
}

/**
 * The talk button: listens to the child until they fall silent (or
 * `talkStop`), then answers what was said through the one entry; the level,
 * the text heard so far and `thinking` stream to `onEvent` (a Tauri `Channel`).
 */
export function talk(profileId: string, onEvent: (event: Talking) => void): Promise<SayResponse> {
  return call<SayResponse>("talk", () => {
    const channel = new Channel<Talking>();
    channel.onmessage = onEvent;
    return { profileId, onEvent: channel };
  });
}

/** The talk button's stop: what was said so far is answered; false when nothing was listening. */
export function talkStop(profileId: string): Promise<boolean> {
  return call<boolean>("talk_stop", { profileId });
}

/** The child's plan for today: tasks from due reviews, unfinished practice and the parent's goals, each done or not. */
export function planToday(profileId: string): Promise<Plan> {
  return call<Plan>("plan_today", { profileId });
}

/** A child's goals (new materials a day, reviews a week). */
export function goalsList(profileId: string): Promise<Goal[]> {
  return call<Goal[]>("goals_list", { profileId });
}

/** Sets (or changes) a child's goal by kind and number. */
export function goalSet(profileId: string, kind: GoalKind, target: number): Promise<Goal> {
  return call<Goal>("goal_set", { profileId, kind, target });
}

/** Sets a goal as a parent says it (每天背一首新诗); unreadable words fail with `plan.goal_unreadable`. */
export function goalSetWords(profileId: string, words: string): Promise<Goal> {
  return call<Goal>("goal_set_words", { profileId, words });
}

export function goalRemove(profileId: string, kind: GoalKind): Promise<null> {
  return call<null>("goal_remove", { profileId, kind });
}

/** A child's recent requests through the entry, newest first, each with its spans. */
export function tracesRecent(profileId: string): Promise<Trace[]> {
  return call<Trace[]>("traces_recent", { profileId });
}

export function traceShow(traceId: string): Promise<Trace> {
  return call<Trace>("trace_show", { traceId });
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

/**
 * Opens the microphone for the child to say one unclear line again; answers
 * with the task id at once. The take is merged into the same attempt.
 */
export function practiceRetakeStart(practiceId: string, line: number): Promise<TaskRef> {
  return call<TaskRef>("practice_retake_start", { practiceId, line });
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

/** A report's attempts, oldest first; `from`/`to` are the report's `period_start`/`period_end`. */
export function reportAttempts(profileId: string, from: string, to: string): Promise<ListedAttempt[]> {
  return call<ListedAttempt[]>("report_attempts", { profileId, from, to });
}

/** The weekly report of the week holding `date`, saved as a picture or a PDF
 * into the Downloads folder (a certificate when the week's goals were met). */
export function reportKeepsakeSave(profileId: string, date: string, format: KeepsakeFormat): Promise<KeepsakeWritten> {
  return call<KeepsakeWritten>("report_keepsake_save", { profileId, date, format });
}

// ---------------------------------------------------------------------------
// B. Chat
// ---------------------------------------------------------------------------

export function chatThreads(profileId: string | null): Promise<ThreadSummary[]> {
  return call<ThreadSummary[]>("chat_threads", { profileId });
}

export function chatThread(threadId: string): Promise<ThreadView> {
  return call<ThreadView>("chat_thread", { threadId });
}

/**
 * Starts a run; `onEvent` gets its AG-UI events as they stream in (through a Tauri `Channel`).
 * `attachments` are files and photos for the message (read with `readUploads`): the core checks
 * them, keeps them in the thread's workspace and shows photos to a model that can see.
 */
export function chatSend(
  threadId: string | null,
  profileId: string | null,
  message: string,
  onEvent: (event: AgUiEvent) => void,
  attachments: FileUpload[] = [],
): Promise<ChatSendResult> {
  return call<ChatSendResult>("chat_send", () => {
    const channel = new Channel<AgUiEvent>();
    channel.onmessage = onEvent;
    return { threadId, profileId, message, attachments, onEvent: channel };
  });
}

/**
 * A parent's message in supervisor mode: a supervisor hands it to the team's
 * agents in turn; each hand-off is a step with the agent's reply, on `onEvent`.
 * Not kept as a conversation (the thread id is empty).
 */
export function chatSupervise(message: string, onEvent: (event: AgUiEvent) => void): Promise<ChatSendResult> {
  return call<ChatSendResult>("chat_supervise", () => {
    const channel = new Channel<AgUiEvent>();
    channel.onmessage = onEvent;
    return { message, onEvent: channel };
  });
}

/**
 * Runs the companion on a request the one entry handed off (`handoff` in the
 * say response); its AG-UI events stream to `onEvent`. When the run ends, its
 * model and tool calls join the request's trace and the chat scene stops waiting.
 */
export function chatHandoff(
  profileId: string,
  traceId: string,
  message: string,
  onEvent: (event: AgUiEvent) => void,
): Promise<ChatSendResult> {
  return call<ChatSendResult>("chat_handoff", () => {
    const channel = new Channel<AgUiEvent>();
    channel.onmessage = onEvent;
    return { profileId, traceId, message, onEvent: channel };
  });
}

/** Continues a run a crash cut off (`interrupted`); its AG-UI events stream to `onEvent` as a new run's do. */
export function chatResume(runId: string, onEvent: (event: AgUiEvent) => void): Promise<ChatSendResult> {
  return call<ChatSendResult>("chat_resume", () => {
    const channel = new Channel<AgUiEvent>();
    channel.onmessage = onEvent;
    return { runId, onEvent: channel };
  });
}

/** A parent's decisions on the calls a run paused on; then the run goes on, its events streaming to `onEvent`. */
export function chatDecide(
  runId: string,
  answers: ApprovalAnswer[],
  onEvent: (event: AgUiEvent) => void,
): Promise<ChatSendResult> {
  return call<ChatSendResult>("chat_decide", () => {
    const channel = new Channel<AgUiEvent>();
    channel.onmessage = onEvent;
    return { runId, answers, onEvent: channel };
  });
}

export function chatCancel(runId: string): Promise<null> {
  return call<null>("chat_cancel", { runId });
}

export function llmSettingsGet(): Promise<LlmSettings> {
  return call<LlmSettings>("llm_settings_get");
}

export function llmSettingsSave(model: string, baseUrl: string | null, apiKey: string | null): Promise<null> {
  return call<null>("llm_settings_save", { model, baseUrl, apiKey });
}

export function llmKeyDelete(): Promise<null> {
  return call<null>("llm_key_delete");
}

/** A parent agrees to the model notice (what is sent where): model use may start. */
export function llmNoticeAgree(): Promise<ModelNoticeView> {
  return call<ModelNoticeView>("llm_notice_agree");
}

/** A parent withdraws the agreement: no model is used until agreed again. */
export function llmNoticeWithdraw(): Promise<null> {
  return call<null>("llm_notice_withdraw");
}

export function llmTest(): Promise<string> {
  return call<string>("llm_test");
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

// ---------------------------------------------------------------------------
// C. Desk lamp and offline models
// ---------------------------------------------------------------------------

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

export function modelsStatus(): Promise<ModelStatus[]> {
  return call<ModelStatus[]>("models_status");
}

/**
 * Downloads one of the official whisper files (`whisper-base`, …) like `deskmate models download`:
 * resumed, digest checked; `onProgress` gets the bytes through a Tauri `Channel`. Resolves to where it was installed.
 */
export function modelsDownload(name: string, onProgress: (p: ModelProgress) => void): Promise<string> {
  return call<string>("models_download", () => {
    const channel = new Channel<ModelProgress>();
    channel.onmessage = onProgress;
    return { name, onProgress: channel };
  });
}

/** Fetches every missing model; `onProgress` gets progress through a Tauri `Channel`. */
export function modelsFetch(onProgress: (p: ModelProgress) => void): Promise<null> {
  return call<null>("models_fetch", () => {
    const channel = new Channel<ModelProgress>();
    channel.onmessage = onProgress;
    return { onProgress: channel };
  });
}

// ── The family's sync (src-tauri/src/commands/sync.rs) ─────────────────────

/** How syncing goes on this device (no secrets). */
export function syncView(): Promise<SyncView> {
  return call<SyncView>("sync_view");
}

/** A new parent account and family on `server`; this device is signed in. */
export function syncSignup(server: string, request: SignupRequest): Promise<SignedIn> {
  return call<SignedIn>("sync_signup", { server, request });
}

/** Signs this device in with a parent's account. */
export function syncLogin(server: string, request: LoginRequest): Promise<SignedIn> {
  return call<SignedIn>("sync_login", { server, request });
}

/** A tablet joins its family with a parent's code; sync turns on and the family's children come over. */
export function syncJoin(server: string, request: PairRequest): Promise<SignedIn> {
  return call<SignedIn>("sync_join", { server, request });
}

/** Signs this device out; sync turns off. */
export function syncLogout(): Promise<null> {
  return call<null>("sync_logout");
}

/** Who this device is signed in as (asks the server). */
export function syncAccount(): Promise<AccountStatus> {
  return call<AccountStatus>("sync_account");
}

/** A one-time code (8 digits, 10 minutes) for a child's tablet. */
export function syncPairingCode(): Promise<PairingCode> {
  return call<PairingCode>("sync_pairing_code");
}

export function syncDevices(): Promise<DeviceView[]> {
  return call<DeviceView[]>("sync_devices");
}

/** Removes a device from the family; it is signed out at once. */
export function syncRemoveDevice(id: string): Promise<null> {
  return call<null>("sync_remove_device", { id });
}

/** Sync on (starting the background loop) or off (stopping it). */
export function syncSet(on: boolean, transcripts: boolean): Promise<SyncView> {
  return call<SyncView>("sync_set", { on, transcripts });
}

/** One round now: this device's changes out, the family's in. */
export function syncNow(): Promise<SyncView> {
  return call<SyncView>("sync_now");
}
