import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../../api";
import { emit, resetEvents } from "../../../test/fakeEvents";
import { renderWithI18n } from "../../../test/helpers";
import { lampState } from "../../../test/samples";
import { LampSection } from "./LampSection";
import { formFromSettings, LlmSection, splitModel } from "./LlmSection";
import { formatBytes, ModelsSection } from "./ModelsSection";
import { VoiceSection } from "./VoiceSection";

vi.mock("../../../api");

/** The notice the core sends for `endpoint` (`agreedAt`: agreed then). */
function notice(endpoint: string | null, agreedAt: string | null = null): api.ModelNoticeView {
  return {
    version: 1,
    endpoint,
    moderation: null,
    text_zh: `同意后，AI 同伴会使用 ${endpoint} 上的模型。`,
    text_en: `When you agree, the companion uses the model at ${endpoint}.`,
    agreed_at: agreedAt,
  };
}
vi.mock("../../../events", () => import("../../../test/fakeEvents"));

describe("settings: AI provider", () => {
  beforeEach(() => {
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: null, base_url: null, has_key: false, notice: notice(null) });
    vi.mocked(api.llmSettingsSave).mockResolvedValue(null);
    vi.mocked(api.llmKeyDelete).mockResolvedValue(null);
  });

  it("prefills the base URL per provider and saves provider:model, the key, and no URL for the default", async () => {
    const user = userEvent.setup();
    renderWithI18n(<LlmSection />);
    await waitFor(() => expect(api.llmSettingsGet).toHaveBeenCalled());
    expect(screen.getByTestId("llm-base-url")).toHaveValue("https://api.openai.com/v1");

    await user.selectOptions(screen.getByTestId("llm-provider"), "deepseek");
    expect(screen.getByTestId("llm-base-url")).toHaveValue("https://api.deepseek.com/v1");
    await user.selectOptions(screen.getByTestId("llm-provider"), "qwen");
    expect(screen.getByTestId("llm-base-url")).toHaveValue("https://dashscope.aliyuncs.com/compatible-mode/v1");
    await user.selectOptions(screen.getByTestId("llm-provider"), "siliconflow");
    expect(screen.getByTestId("llm-base-url")).toHaveValue("https://api.siliconflow.cn/v1");
    await user.selectOptions(screen.getByTestId("llm-provider"), "ollama");
    expect(screen.getByTestId("llm-base-url")).toHaveValue("http://localhost:11434/v1");
    await user.selectOptions(screen.getByTestId("llm-provider"), "anthropic");
    expect(screen.getByTestId("llm-base-url")).toHaveValue("https://api.anthropic.com/v1");

    await user.click(screen.getByTestId("llm-save"));
    expect(screen.getByText("请填写模型名称。")).toBeInTheDocument();
    expect(api.llmSettingsSave).not.toHaveBeenCalled();

    expect(screen.getByTestId("llm-key")).toHaveAttribute("type", "password");
    await user.type(screen.getByTestId("llm-model"), "claude-3-5-haiku-latest");
    await user.type(screen.getByTestId("llm-key"), "sk-ant-secret");
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: "anthropic:claude-3-5-haiku-latest", base_url: null, has_key: true, notice: notice("https://api.anthropic.com/v1") });
    await user.click(screen.getByTestId("llm-save"));
    expect(api.llmSettingsSave).toHaveBeenCalledWith("anthropic:claude-3-5-haiku-latest", null, "sk-ant-secret");
    expect(await screen.findByTestId("llm-key-saved")).toHaveTextContent("已保存密钥");
    expect(screen.getByTestId("llm-key")).toHaveValue("");
    expect(screen.getByTestId("llm-message")).toHaveTextContent("已保存");
  });

  it("loads the saved settings; an empty key keeps the saved one; a changed URL is sent", async () => {
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: "ollama:qwen2.5:7b", base_url: "http://192.168.1.5:11434/v1", has_key: false, notice: notice("http://192.168.1.5:11434/v1") });
    const user = userEvent.setup();
    renderWithI18n(<LlmSection />);
    await waitFor(() => expect(screen.getByTestId("llm-model")).toHaveValue("qwen2.5:7b"));
    expect(screen.getByTestId("llm-provider")).toHaveValue("ollama");
    expect(screen.getByTestId("llm-base-url")).toHaveValue("http://192.168.1.5:11434/v1");
    await user.click(screen.getByTestId("llm-save"));
    expect(api.llmSettingsSave).toHaveBeenCalledWith("ollama:qwen2.5:7b", "http://192.168.1.5:11434/v1", null);
  });

  it("a custom OpenAI-compatible server needs a base URL", async () => {
    const user = userEvent.setup();
    renderWithI18n(<LlmSection />);
    await waitFor(() => expect(api.llmSettingsGet).toHaveBeenCalled());
    await user.selectOptions(screen.getByTestId("llm-provider"), "custom");
    expect(screen.getByTestId("llm-base-url")).toHaveValue("");
    await user.type(screen.getByTestId("llm-model"), "my-model");
    await user.click(screen.getByTestId("llm-save"));
    expect(screen.getByText("请填写接口地址。")).toBeInTheDocument();
    await user.type(screen.getByTestId("llm-base-url"), "ftp://box");
    await user.click(screen.getByTestId("llm-save"));
    expect(screen.getByText("接口地址要以 http:// 或 https:// 开头。")).toBeInTheDocument();
    await user.clear(screen.getByTestId("llm-base-url"));
    await user.type(screen.getByTestId("llm-base-url"), "http://localhost:8000/v1");
    await user.click(screen.getByTestId("llm-save"));
    expect(api.llmSettingsSave).toHaveBeenCalledWith("custom:my-model", "http://localhost:8000/v1", null);
  });

  it("tests the connection and shows the answer or the error", async () => {
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: "openai:gpt-4o-mini", base_url: null, has_key: true, notice: notice("https://api.openai.com/v1") });
    vi.mocked(api.llmTest).mockResolvedValueOnce("openai:gpt-4o-mini answered OK in 420 ms").mockRejectedValueOnce("the API key was refused (401)");
    const user = userEvent.setup();
    renderWithI18n(<LlmSection />);
    await waitFor(() => expect(screen.getByTestId("llm-test")).toBeEnabled());
    await user.click(screen.getByTestId("llm-test"));
    expect(await screen.findByTestId("llm-test-result")).toHaveTextContent("answered OK in 420 ms");
    expect(screen.getByTestId("llm-test-result")).toHaveAttribute("data-ok", "true");
    await user.click(screen.getByTestId("llm-test"));
    await waitFor(() => expect(screen.getByTestId("llm-test-result")).toHaveAttribute("data-ok", "false"));
    expect(screen.getByTestId("llm-test-result")).toHaveTextContent("the API key was refused (401)");
  });

  it("deletes the saved key", async () => {
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: "openai:gpt-4o-mini", base_url: null, has_key: true, notice: notice("https://api.openai.com/v1") });
    const user = userEvent.setup();
    renderWithI18n(<LlmSection />);
    await user.click(await screen.findByTestId("llm-key-delete"));
    expect(api.llmKeyDelete).toHaveBeenCalledTimes(1);
    expect(await screen.findByTestId("llm-message")).toHaveTextContent("密钥已删除");
  });

  it("shows the notice of what is sent where and records the parent's agreement, only once ticked", async () => {
    const endpoint = "http://127.0.0.1:9/v1";
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: "custom:scripted", base_url: endpoint, has_key: false, notice: notice(endpoint) });
    vi.mocked(api.llmNoticeAgree).mockResolvedValue(notice(endpoint, "2026-11-27T15:00:00Z"));
    const user = userEvent.setup();
    renderWithI18n(<LlmSection />);
    expect(await screen.findByTestId("llm-notice-text")).toHaveTextContent(`AI 同伴会使用 ${endpoint} 上的模型`);
    expect(screen.getByTestId("llm-notice-waiting")).toBeInTheDocument();
    expect(screen.getByTestId("llm-notice-agree")).toBeDisabled();
    await user.click(screen.getByTestId("llm-notice-check"));
    vi.mocked(api.llmSettingsGet).mockResolvedValue({
      model: "custom:scripted",
      base_url: endpoint,
      has_key: false,
      notice: notice(endpoint, "2026-11-27T15:00:00Z"),
    });
    await user.click(screen.getByTestId("llm-notice-agree"));
    expect(api.llmNoticeAgree).toHaveBeenCalledTimes(1);
    expect(await screen.findByTestId("llm-notice-agreed")).toBeInTheDocument();
    expect(screen.getByTestId("llm-notice")).toHaveAttribute("data-agreed", "true");
  });

  it("withdraws the agreement, and says so when saving it fails", async () => {
    const endpoint = "https://api.openai.com/v1";
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: "openai:gpt-4o-mini", base_url: null, has_key: true, notice: notice(endpoint, "2026-11-27T15:00:00Z") });
    vi.mocked(api.llmNoticeWithdraw).mockResolvedValue(null);
    const user = userEvent.setup();
    renderWithI18n(<LlmSection />);
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: "openai:gpt-4o-mini", base_url: null, has_key: true, notice: notice(endpoint) });
    await user.click(await screen.findByTestId("llm-notice-withdraw"));
    expect(api.llmNoticeWithdraw).toHaveBeenCalledTimes(1);
    expect(await screen.findByTestId("llm-notice-waiting")).toBeInTheDocument();
    vi.mocked(api.llmNoticeAgree).mockRejectedValue({ code: "llm.no_model", message: "no chat model is configured", params: {} });
    await user.click(screen.getByTestId("llm-notice-check"));
    await user.click(screen.getByTestId("llm-notice-agree"));
    expect(await screen.findByTestId("llm-notice-error")).toHaveTextContent("AI 伙伴还没有设置好");
  });

  it("shows no notice before a model is set up", async () => {
    renderWithI18n(<LlmSection />);
    await waitFor(() => expect(api.llmSettingsGet).toHaveBeenCalled());
    expect(screen.queryByTestId("llm-notice")).toBeNull();
  });

  it("reads provider:model at the first colon and keeps an unlisted provider's name", () => {
    expect(splitModel("ollama:qwen2.5:7b")).toEqual({ provider: "ollama", model: "qwen2.5:7b" });
    expect(splitModel("gpt-4o")).toBeNull();
    expect(formFromSettings({ model: "moonshot:kimi", base_url: null, has_key: true, notice: notice(null) })).toMatchObject({
      provider: "custom",
      customName: "moonshot",
      model: "kimi",
    });
  });
});

describe("settings: desk lamp", () => {
  beforeEach(() => {
    resetEvents();
    vi.mocked(api.lampStatus).mockResolvedValue(null);
    vi.mocked(api.lampDisconnect).mockResolvedValue(null);
  });

  it("connects on the port given (or none), shows the state and the panel, disconnects", async () => {
    vi.mocked(api.lampConnect).mockResolvedValue(lampState({ connection: "connected", port: "/dev/ttyUSB0" }));
    const user = userEvent.setup();
    renderWithI18n(<LampSection />);
    expect(screen.getByTestId("lamp-state")).toHaveAttribute("data-state", "disconnected");
    await user.click(screen.getByTestId("lamp-connect"));
    expect(api.lampConnect).toHaveBeenLastCalledWith(null);
    await user.type(screen.getByTestId("lamp-port"), "/dev/ttyUSB0");
    await user.click(screen.getByTestId("lamp-connect"));
    expect(api.lampConnect).toHaveBeenLastCalledWith("/dev/ttyUSB0");
    await waitFor(() => expect(screen.getByTestId("lamp-state")).toHaveAttribute("data-state", "connected"));
    expect(screen.getByTestId("lamp-state")).toHaveTextContent("已连接 · /dev/ttyUSB0");
    expect(screen.getByTestId("lamp-panel")).toBeInTheDocument();
    expect(screen.getByTestId("lamp-device")).toHaveTextContent("Deskmate Lamp S1");

    emit("lamp://notice", { kind: "connection", state: "connecting", port: "/dev/ttyUSB0", at_unix_ms: 1 });
    expect(screen.getByTestId("lamp-state")).toHaveAttribute("data-state", "connecting");

    await user.click(screen.getByTestId("lamp-disconnect"));
    expect(api.lampDisconnect).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId("lamp-state")).toHaveAttribute("data-state", "disconnected");
  });

  it("shows why a connection failed", async () => {
    vi.mocked(api.lampConnect).mockRejectedValue("no lamp found on USB (looked for 1209:d35c)");
    const user = userEvent.setup();
    renderWithI18n(<LampSection />);
    await user.click(screen.getByTestId("lamp-connect"));
    expect(await screen.findByTestId("lamp-error")).toHaveTextContent("no lamp found on USB");
  });
});

describe("settings: offline speech models", () => {
  beforeEach(() => {
    vi.mocked(api.modelsStatus).mockResolvedValue([
      { name: "whisper-base", purpose: "speech recognition", present: false, detail: "ggml-base.bin is missing" },
      { name: "silero-vad", purpose: "voice activity detection", present: true, detail: "" },
    ]);
  });

  it("lists the models, downloads the missing ones with progress per model, then reads the status again", async () => {
    let progress: ((p: api.ModelProgress) => void) | null = null;
    let finish: () => void = () => {};
    vi.mocked(api.modelsFetch).mockImplementation(
      (onProgress) =>
        new Promise((resolve) => {
          progress = onProgress;
          finish = () => resolve(null);
        }),
    );
    const user = userEvent.setup();
    renderWithI18n(<ModelsSection />);
    const rows = await screen.findAllByTestId("model-row");
    expect(rows.map((r) => [r.dataset.name, r.dataset.present])).toEqual([
      ["whisper-base", "false"],
      ["silero-vad", "true"],
    ]);
    expect(within(rows[0]).getByText("未下载")).toBeInTheDocument();

    await user.click(screen.getByTestId("models-fetch"));
    expect(api.modelsFetch).toHaveBeenCalledTimes(1);
    expect(screen.getByTestId("models-fetch")).toBeDisabled();
    act(() => progress!({ name: "whisper-base", phase: "download", done_bytes: 50 * 1024 * 1024, total_bytes: 200 * 1024 * 1024, message: null }));
    const bar = screen.getByTestId("model-progress");
    expect(bar).toHaveAttribute("data-name", "whisper-base");
    expect(within(bar).getByRole("progressbar")).toHaveAttribute("aria-valuenow", "25");
    expect(bar).toHaveTextContent("50.0 MB / 200.0 MB");
    act(() => progress!({ name: "whisper-base", phase: "convert", done_bytes: 0, total_bytes: 0, message: "ggml f16" }));
    expect(screen.getByTestId("model-progress")).toHaveAttribute("data-phase", "convert");

    vi.mocked(api.modelsStatus).mockResolvedValue([
      { name: "whisper-base", purpose: "speech recognition", present: true, detail: "" },
      { name: "silero-vad", purpose: "voice activity detection", present: true, detail: "" },
    ]);
    await act(async () => finish());
    await waitFor(() => expect(screen.getAllByTestId("model-row")[0]).toHaveAttribute("data-present", "true"));
    expect(screen.getByTestId("models-fetch")).toBeDisabled();
    expect(screen.getByTestId("models-fetch")).toHaveTextContent("都已就绪");
  });

  it("downloads the official whisper file with its bytes, and says why a download was refused", async () => {
    let progress: ((p: api.ModelProgress) => void) | null = null;
    let fail: (why: string) => void = () => {};
    vi.mocked(api.modelsDownload).mockImplementation(
      (_name, onProgress) =>
        new Promise((_resolve, reject) => {
          progress = onProgress;
          fail = reject;
        }),
    );
    const user = userEvent.setup();
    renderWithI18n(<ModelsSection />);
    const rows = await screen.findAllByTestId("model-row");
    // Only whisper has an official file to download.
    expect(within(rows[1]).queryByTestId("model-download-official")).toBeNull();
    await user.click(within(rows[0]).getByTestId("model-download-official"));
    expect(api.modelsDownload).toHaveBeenCalledWith("whisper-base", expect.any(Function));
    expect(within(rows[0]).getByTestId("model-download-official")).toBeDisabled();
    act(() => progress!({ name: "whisper-base", phase: "download", done_bytes: 37 * 1024 * 1024, total_bytes: 148 * 1024 * 1024, message: null }));
    const bar = screen.getByTestId("model-progress");
    expect(within(bar).getByRole("progressbar")).toHaveAttribute("aria-valuenow", "25");
    expect(bar).toHaveTextContent("37.0 MB / 148.0 MB");
    await act(async () => fail("models/official/ggml-base.bin has sha1 0000, expected sha1 4657"));
    expect(await screen.findByTestId("models-fetch-error")).toHaveTextContent("expected sha1 4657");
    expect(within(screen.getAllByTestId("model-row")[0]).getByTestId("model-download-official")).toBeEnabled();
  });

  it("shows a failed download in plain words", async () => {
    vi.mocked(api.modelsFetch).mockRejectedValue("the download of openai-whisper stopped: no network");
    const user = userEvent.setup();
    renderWithI18n(<ModelsSection />);
    await user.click(await screen.findByTestId("models-fetch"));
    expect(await screen.findByTestId("models-fetch-error")).toHaveTextContent("no network");
  });

  it("formats sizes", () => {
    expect(formatBytes(0)).toBe("0 MB");
    expect(formatBytes(2048)).toBe("2 KB");
    expect(formatBytes(3 * 1024 ** 3)).toBe("3.00 GB");
  });
});

describe("settings: feedback voice", () => {
  beforeEach(() => {
    vi.mocked(api.voiceSettingsGet).mockResolvedValue(null);
    vi.mocked(api.voiceSettingsSave).mockResolvedValue(null);
  });

  it("says the offline voice is used, checks the service, saves it, and goes back to offline", async () => {
    const user = userEvent.setup();
    renderWithI18n(<VoiceSection />);
    expect(await screen.findByTestId("voice-offline-now")).toHaveTextContent("espeak-ng");
    expect(screen.getByTestId("voice-offline")).toBeDisabled();

    await user.clear(screen.getByTestId("voice-base-url"));
    await user.type(screen.getByTestId("voice-base-url"), "ftp://box");
    await user.clear(screen.getByTestId("voice-voice"));
    await user.click(screen.getByTestId("voice-save"));
    expect(screen.getByText("地址要以 http:// 或 https:// 开头。")).toBeInTheDocument();
    expect(screen.getByTestId("voice-base-url")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByTestId("voice-base-url")).toHaveAttribute("aria-describedby", "voice-base-url-hint voice-base-url-error");
    expect(screen.getByText("请填写语音模型和声音。")).toBeInTheDocument();
    expect(api.voiceSettingsSave).not.toHaveBeenCalled();

    await user.clear(screen.getByTestId("voice-base-url"));
    await user.type(screen.getByTestId("voice-base-url"), "http://localhost:8880/v1");
    await user.type(screen.getByTestId("voice-voice"), "nova");
    await user.clear(screen.getByTestId("voice-key-provider"));
    await user.click(screen.getByTestId("voice-save"));
    expect(api.voiceSettingsSave).toHaveBeenCalledWith({
      base_url: "http://localhost:8880/v1",
      model: "tts-1",
      voice: "nova",
      key_provider: null,
    });
    expect(await screen.findByTestId("voice-message")).toHaveTextContent("已保存");
    expect(screen.queryByTestId("voice-offline-now")).not.toBeInTheDocument();

    await user.click(screen.getByTestId("voice-offline"));
    expect(api.voiceSettingsSave).toHaveBeenLastCalledWith(null);
    expect(await screen.findByTestId("voice-offline-now")).toBeInTheDocument();
    expect(screen.getByTestId("voice-message")).toHaveTextContent("已改回离线声音");
  });

  it("the test phrase says which voice read it, and why the service did not", async () => {
    vi.mocked(api.voiceSettingsGet).mockResolvedValue({
      base_url: "https://api.openai.com/v1",
      model: "tts-1",
      voice: "alloy",
      key_provider: "openai",
    });
    const user = userEvent.setup();
    renderWithI18n(<VoiceSection />);
    await waitFor(() => expect(screen.getByTestId("voice-key-provider")).toHaveValue("openai"));

    vi.mocked(api.voiceTest).mockResolvedValue({ text: "你好", backend: "openai:tts-1@https://api.openai.com/v1", fell_back: null, seconds: 2.04 });
    await user.click(screen.getByTestId("voice-test"));
    expect(api.voiceTest).toHaveBeenCalledWith("zh");
    expect(await screen.findByTestId("voice-test-result")).toHaveTextContent("用语音服务读出来了（2.0 秒）");

    vi.mocked(api.voiceTest).mockResolvedValue({ text: "你好", backend: "espeak-ng@140", fell_back: "https://api.openai.com/v1/audio/speech: connection refused", seconds: 1.5 });
    await user.click(screen.getByTestId("voice-test"));
    await waitFor(() => expect(screen.getByTestId("voice-test-result")).toHaveTextContent("改用了离线声音：https://api.openai.com/v1/audio/speech: connection refused"));

    vi.mocked(api.voiceTest).mockRejectedValue("espeak-ng is not installed");
    await user.click(screen.getByTestId("voice-test"));
    await waitFor(() => expect(screen.getByTestId("voice-test-result")).toHaveTextContent("没能读出来：espeak-ng is not installed"));
  });
});
