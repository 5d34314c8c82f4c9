import { beforeEach, describe, expect, it, vi } from "vitest";

const invoke = vi.fn();
class FakeChannel<T> {
  onmessage: (m: T) => void = () => {};
}
vi.mock("@tauri-apps/api/core", () => ({ invoke: (...a: unknown[]) => invoke(...a), Channel: FakeChannel }));

const api = await import("./api");

describe("api: command names and argument keys (camelCase in, as the lead's Rust expects)", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation(async () => null);
  });

  it("recitation and reports", async () => {
    await api.reviewsDue("c1");
    await api.practiceStart("c1", "m1", "text");
    await api.practiceCurrent("c1");
    await api.practiceSubmitText("p1", "床前明月光");
    await api.practiceRecordStart("p1");
    await api.practiceRecordStop("p1");
    await api.practiceRetry("p1");
    await api.practiceLeave("p1");
    await api.report("c1", "weekly", "2026-03-02");
    expect(invoke.mock.calls).toEqual([
      ["reviews_due", { profileId: "c1" }],
      ["practice_start", { profileId: "c1", materialId: "m1", mode: "text" }],
      ["practice_current", { profileId: "c1" }],
      ["practice_submit_text", { practiceId: "p1", text: "床前明月光" }],
      ["practice_record_start", { practiceId: "p1" }],
      ["practice_record_stop", { practiceId: "p1" }],
      ["practice_retry", { practiceId: "p1" }],
      ["practice_leave", { practiceId: "p1" }],
      ["report", { profileId: "c1", kind: "weekly", date: "2026-03-02" }],
    ]);
  });

  it("chat, with a Channel carrying the events to the callback", async () => {
    invoke.mockResolvedValue({ thread_id: "t", run_id: "r" });
    const onEvent = vi.fn();
    expect(await api.chatSend(null, "c1", "hi", onEvent)).toEqual({ thread_id: "t", run_id: "r" });
    const [cmd, args] = invoke.mock.calls[0];
    expect(cmd).toBe("chat_send");
    expect(args).toMatchObject({ threadId: null, profileId: "c1", message: "hi" });
    expect(args.onEvent).toBeInstanceOf(FakeChannel);
    args.onEvent.onmessage({ type: "RUN_STARTED", threadId: "t", runId: "r" });
    expect(onEvent).toHaveBeenCalledWith({ type: "RUN_STARTED", threadId: "t", runId: "r" });

    // The talk button streams its progress the same way.
    invoke.mockReset();
    invoke.mockResolvedValue({ scene: "recite" });
    const onTalk = vi.fn();
    await api.talk("c1", onTalk);
    const [talkCmd, talkArgs] = invoke.mock.calls[0];
    expect(talkCmd).toBe("talk");
    expect(talkArgs).toMatchObject({ profileId: "c1" });
    talkArgs.onEvent.onmessage({ kind: "thinking" });
    expect(onTalk).toHaveBeenCalledWith({ kind: "thinking" });
    await api.talkStop("c1");
    expect(invoke.mock.calls[1]).toEqual(["talk_stop", { profileId: "c1" }]);

    // Continuing an interrupted run streams the same way.
    invoke.mockReset();
    invoke.mockResolvedValue({ thread_id: "t", run_id: "r9" });
    const onResumed = vi.fn();
    expect(await api.chatResume("r9", onResumed)).toEqual({ thread_id: "t", run_id: "r9" });
    const [resumeCmd, resumeArgs] = invoke.mock.calls[0];
    expect(resumeCmd).toBe("chat_resume");
    expect(resumeArgs).toMatchObject({ runId: "r9" });
    resumeArgs.onEvent.onmessage({ type: "RUN_FINISHED", threadId: "t", runId: "r9" });
    expect(onResumed).toHaveBeenCalledWith({ type: "RUN_FINISHED", threadId: "t", runId: "r9" });

    invoke.mockReset();
    invoke.mockImplementation(async () => null);
    await api.chatThreads(null);
    await api.chatCancel("r");
    await api.llmSettingsSave("openai:gpt-4o-mini", null, "sk-x");
    await api.llmKeyDelete();
    await api.llmTest();
    expect(invoke.mock.calls).toEqual([
      ["chat_threads", { profileId: null }],
      ["chat_cancel", { runId: "r" }],
      ["llm_settings_save", { model: "openai:gpt-4o-mini", baseUrl: null, apiKey: "sk-x" }],
      ["llm_key_delete", undefined],
      ["llm_test", undefined],
    ]);
  });

  it("lamp and models", async () => {
    await api.lampStatus();
    await api.lampConnect(null);
    await api.lampDisconnect();
    await api.lampPanelEvent({ button: "stop" });
    await api.modelsStatus();
    const onProgress = vi.fn();
    await api.modelsFetch(onProgress);
    expect(invoke.mock.calls.slice(0, 5)).toEqual([
      ["lamp_status", undefined],
      ["lamp_connect", { port: null }],
      ["lamp_disconnect", undefined],
      ["lamp_panel_event", { event: { button: "stop" } }],
      ["models_status", undefined],
    ]);
    const [cmd, args] = invoke.mock.calls[5];
    expect(cmd).toBe("models_fetch");
    args.onProgress.onmessage({ name: "whisper-base", phase: "done", done_bytes: 1, total_bytes: 1, message: null });
    expect(onProgress).toHaveBeenCalledTimes(1);
  });

  it("models_download names the file and streams its bytes", async () => {
    invoke.mockResolvedValue("/models/official/ggml-base.bin");
    const onProgress = vi.fn();
    await expect(api.modelsDownload("whisper-base", onProgress)).resolves.toBe("/models/official/ggml-base.bin");
    const [cmd, args] = invoke.mock.calls[0];
    expect(cmd).toBe("models_download");
    expect(args.name).toBe("whisper-base");
    args.onProgress.onmessage({ name: "whisper-base", phase: "download", done_bytes: 5_000_000, total_bytes: 147_951_465, message: null });
    expect(onProgress).toHaveBeenCalledWith(expect.objectContaining({ done_bytes: 5_000_000, total_bytes: 147_951_465 }));
  });

  it("rejects with the backend's plain string", async () => {
    invoke.mockRejectedValue("the practice is not listening");
    await expect(api.practiceRecordStop("p1")).rejects.toBe("the practice is not listening");
    invoke.mockRejectedValue(new Error("boom"));
    await expect(api.lampStatus()).rejects.toBe("boom");
  });
});

describe("api: shapes the core may answer in", () => {
  beforeEach(() => invoke.mockReset());

  it("llm_settings_get: the shell's LlmSettingsView passes through", async () => {
    const view = {
      model: "openai:gpt-4o-mini",
      base_url: null,
      has_key: true,
      notice: { version: 1, endpoint: "https://api.openai.com/v1", moderation: null, text_zh: "…", text_en: "…", agreed_at: null },
    };
    invoke.mockResolvedValue(view);
    expect(await api.llmSettingsGet()).toEqual(view);
    expect(invoke).toHaveBeenCalledWith("llm_settings_get", undefined);
  });

  it("chat_thread: the spec's ThreadView passes through", async () => {
    const view = {
      thread: { id: "t", title: "x", profile_id: null, created_at: "", updated_at: "" },
      messages: [{ id: "1", role: "user", content: "hi", tool_calls: null, tool_call_id: null, is_error: false, created_at: "c" }],
      todos: [{ content: "a", status: "pending" }],
    };
    invoke.mockResolvedValue(view);
    expect(await api.chatThread("t")).toEqual(view);
    expect(invoke).toHaveBeenCalledWith("chat_thread", { threadId: "t" });
  });
});

describe("api: photos of homework", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation(async () => null);
  });

  it("reads picked files to base64 (large ones too) and sends them to say_photos", async () => {
    const big = new Uint8Array(100_000).map((_, i) => i % 251);
    const photos = await api.readPhotos([new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], "a.png"), new File([big], "b.png")]);
    expect(photos[0]).toEqual({ name: "a.png", data: "iVBORw==" });
    expect(Uint8Array.from(atob(photos[1].data), (c) => c.charCodeAt(0))).toEqual(big);
    await api.sayPhotos("c1", photos, "帮我看看");
    expect(invoke).toHaveBeenCalledWith("say_photos", { profileId: "c1", photos, text: "帮我看看" });
  });
});
