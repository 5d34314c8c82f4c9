import { useCallback, useEffect, useState, type FormEvent } from "react";
import * as api from "../../../api";
import type { LlmSettings, ModelNoticeView } from "../../../api";
import { Field } from "../../../components/Field";
import { errorText } from "../../../errors";
import { useLocale, useT, type MessageKey } from "../../../i18n";

export interface ProviderOption {
  id: string;
  label: MessageKey;
  /** Prefilled base URL (the provider's default in `crates/llm/src/model.rs`). */
  baseUrl: string;
  example: string;
  needsKey: boolean;
}

export const PROVIDERS: ProviderOption[] = [
  { id: "openai", label: "llm.provider.openai", baseUrl: "https://api.openai.com/v1", example: "gpt-4o-mini", needsKey: true },
  {
    id: "anthropic",
    label: "llm.provider.anthropic",
    baseUrl: "https://api.anthropic.com/v1",
    example: "claude-3-5-haiku-latest",
    needsKey: true,
  },
  { id: "ollama", label: "llm.provider.ollama", baseUrl: "http://localhost:11434/v1", example: "qwen2.5:7b", needsKey: false },
  { id: "deepseek", label: "llm.provider.deepseek", baseUrl: "https://api.deepseek.com/v1", example: "deepseek-chat", needsKey: true },
  {
    id: "qwen",
    label: "llm.provider.qwen",
    baseUrl: "https://dashscope.aliyuncs.com/compatible-mode/v1",
    example: "qwen-plus",
    needsKey: true,
  },
  {
    id: "siliconflow",
    label: "llm.provider.siliconflow",
    baseUrl: "https://api.siliconflow.cn/v1",
    example: "Qwen/Qwen2.5-7B-Instruct",
    needsKey: true,
  },
  { id: "custom", label: "llm.provider.custom", baseUrl: "", example: "my-model", needsKey: false },
];

const byId = (id: string) => PROVIDERS.find((p) => p.id === id);

/** Splits "provider:model" at the first colon (as `ModelSpec::parse` does). */
export function splitModel(model: string | null): { provider: string; model: string } | null {
  if (!model) return null;
  const i = model.indexOf(":");
  if (i <= 0) return null;
  return { provider: model.slice(0, i).trim().toLowerCase(), model: model.slice(i + 1).trim() };
}

interface FormState {
  provider: string;
  /** The provider name saved for "custom" (kept when a name set elsewhere is not in the list). */
  customName: string;
  baseUrl: string;
  model: string;
  key: string;
}

const EMPTY: FormState = { provider: "openai", customName: "custom", baseUrl: PROVIDERS[0].baseUrl, model: "", key: "" };

export function formFromSettings(s: LlmSettings | null): FormState {
  const spec = splitModel(s?.model ?? null);
  if (!spec) return { ...EMPTY, baseUrl: s?.base_url ?? EMPTY.baseUrl };
  const known = byId(spec.provider);
  if (known && known.id !== "custom") {
    return { ...EMPTY, provider: known.id, model: spec.model, baseUrl: s?.base_url ?? known.baseUrl };
  }
  return { ...EMPTY, provider: "custom", customName: spec.provider, model: spec.model, baseUrl: s?.base_url ?? "" };
}

/** Settings → "AI 助手 / AI provider": provider, base URL, model, API key (to the OS keyring), test, delete key. */
export function LlmSection() {
  const t = useT();
  const [settings, setSettings] = useState<LlmSettings | null>(null);
  const [form, setForm] = useState<FormState>(EMPTY);
  const [fieldErrors, setFieldErrors] = useState<{ model?: string; baseUrl?: string }>({});
  const [busy, setBusy] = useState<null | "save" | "test" | "delete">(null);
  const [message, setMessage] = useState<{ ok: boolean; text: string } | null>(null);
  const [testResult, setTestResult] = useState<{ ok: boolean; text: string } | null>(null);

  const load = useCallback(async (fill: boolean) => {
    try {
      const s = await api.llmSettingsGet();
      setSettings(s ?? null);
      if (fill) setForm(formFromSettings(s ?? null));
    } catch (e) {
      setMessage({ ok: false, text: t("llm.loadError", { error: errorText(e) }) });
    }
  }, [t]);

  useEffect(() => {
    void load(true);
    // Read once; later reloads keep what the parent typed.
  }, []);

  const option = byId(form.provider) ?? PROVIDERS[0];

  function set<K extends keyof FormState>(k: K, v: FormState[K]) {
    setForm((f) => ({ ...f, [k]: v }));
    setMessage(null);
    if (k === "model" || k === "baseUrl") setFieldErrors((x) => ({ ...x, [k]: undefined }));
  }

  function chooseProvider(id: string) {
    const next = byId(id) ?? PROVIDERS[0];
    setForm((f) => ({ ...f, provider: next.id, baseUrl: next.id === "custom" ? "" : next.baseUrl }));
    setFieldErrors({});
    setMessage(null);
    setTestResult(null);
  }

  async function save(ev: FormEvent) {
    ev.preventDefault();
    if (busy) return;
    const model = form.model.trim();
    const baseUrl = form.baseUrl.trim();
    const errs: { model?: string; baseUrl?: string } = {};
    if (!model) errs.model = t("llm.err.model");
    if (option.id === "custom" && !baseUrl) errs.baseUrl = t("llm.err.baseUrlRequired");
    else if (baseUrl && !/^https?:\/\//i.test(baseUrl)) errs.baseUrl = t("llm.err.baseUrl");
    setFieldErrors(errs);
    if (Object.keys(errs).length > 0) return;
    const provider = option.id === "custom" ? form.customName.trim() || "custom" : option.id;
    // The provider's own default is saved as "no base URL", so it follows the provider.
    const sendUrl = !baseUrl || (option.id !== "custom" && baseUrl.replace(/\/+$/, "") === option.baseUrl) ? null : baseUrl;
    const key = form.key.trim();
    setBusy("save");
    setMessage(null);
    try {
      await api.llmSettingsSave(`${provider}:${model}`, sendUrl, key ? key : null);
      setForm((f) => ({ ...f, key: "" }));
      setMessage({ ok: true, text: t("llm.saved") });
      await load(false);
    } catch (e) {
      setMessage({ ok: false, text: t("llm.saveError", { error: errorText(e) }) });
    } finally {
      setBusy(null);
    }
  }

  async function test() {
    if (busy) return;
    setBusy("test");
    setTestResult(null);
    try {
      const text = await api.llmTest();
      setTestResult({ ok: true, text: text || t("llm.testOk") });
    } catch (e) {
      setTestResult({ ok: false, text: errorText(e) });
    } finally {
      setBusy(null);
    }
  }

  async function deleteKey() {
    if (busy) return;
    setBusy("delete");
    setMessage(null);
    try {
      await api.llmKeyDelete();
      setMessage({ ok: true, text: t("llm.keyDeleted") });
      await load(false);
    } catch (e) {
      setMessage({ ok: false, text: t("llm.deleteError", { error: errorText(e) }) });
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="card" aria-labelledby="settings-llm-title" data-testid="llm-settings">
      <h2 id="settings-llm-title" className="section-title">
        {t("llm.title")}
      </h2>
      <p className="muted">{t("llm.intro")}</p>
      {settings && !settings.model && <p className="banner banner-info">{t("llm.notConfigured")}</p>}
      <form className="form" onSubmit={save} noValidate>
        <div className="form-row">
          <Field id="llm-provider" label={t("llm.provider")}>
            <select
              data-testid="llm-provider"
              className="input"
              value={form.provider}
              onChange={(e) => chooseProvider(e.target.value)}
            >
              {PROVIDERS.map((p) => (
                <option key={p.id} value={p.id}>
                  {t(p.label)}
                </option>
              ))}
            </select>
          </Field>
          <Field id="llm-model" label={t("llm.model")} hint={t("llm.modelHint", { example: option.example })} error={fieldErrors.model}>
            <input
              data-testid="llm-model"
              className="input"
              type="text"
              autoComplete="off"
              spellCheck={false}
              placeholder={option.example}
              value={form.model}
              onChange={(e) => set("model", e.target.value)}
            />
          </Field>
        </div>
        {option.id === "custom" && (
          <Field id="llm-custom-name" label={t("llm.customName")} hint={t("llm.customNameHint")}>
            <input
              data-testid="llm-custom-name"
              className="input"
              type="text"
              autoComplete="off"
              spellCheck={false}
              value={form.customName}
              onChange={(e) => set("customName", e.target.value.replace(/[^A-Za-z0-9_-]/g, "").toLowerCase())}
            />
          </Field>
        )}
        <Field id="llm-base-url" label={t("llm.baseUrl")} hint={t("llm.baseUrlHint")} error={fieldErrors.baseUrl}>
          <input
            data-testid="llm-base-url"
            className="input"
            type="url"
            autoComplete="off"
            spellCheck={false}
            placeholder="https://…/v1"
            value={form.baseUrl}
            onChange={(e) => set("baseUrl", e.target.value)}
          />
        </Field>
        <Field
          id="llm-key"
          label={t("llm.key")}
          hint={option.needsKey ? t("llm.keyHint") : t("llm.keyOptional")}
          extra={
            settings?.has_key ? (
              <span className="tag tag-ok key-saved" data-testid="llm-key-saved">
                ✓ {t("llm.keySaved")}
              </span>
            ) : null
          }
        >
          <input
            data-testid="llm-key"
            className="input"
            type="password"
            autoComplete="new-password"
            spellCheck={false}
            placeholder={settings?.has_key ? t("llm.keyKeep") : ""}
            value={form.key}
            onChange={(e) => set("key", e.target.value)}
          />
        </Field>
        {message && (
          <p className={message.ok ? "banner banner-ok" : "banner banner-error"} role={message.ok ? "status" : "alert"} data-testid="llm-message">
            {message.text}
          </p>
        )}
        <div className="button-row">
          <button type="submit" className="btn btn-primary" data-testid="llm-save" disabled={busy !== null}>
            {busy === "save" ? t("common.saving") : t("llm.save")}
          </button>
          <button
            type="button"
            className="btn btn-secondary"
            data-testid="llm-test"
            disabled={busy !== null || !settings?.model}
            onClick={() => void test()}
          >
            {busy === "test" ? t("llm.testing") : t("llm.test")}
          </button>
          {settings?.has_key && (
            <button
              type="button"
              className="btn btn-secondary btn-danger"
              data-testid="llm-key-delete"
              disabled={busy !== null}
              onClick={() => void deleteKey()}
            >
              {t("llm.deleteKey")}
            </button>
          )}
        </div>
        {testResult && (
          <p
            className={testResult.ok ? "banner banner-ok" : "banner banner-error"}
            data-testid="llm-test-result"
            data-ok={String(testResult.ok)}
            role="status"
          >
            {testResult.ok ? t("llm.testResultOk", { text: testResult.text }) : t("llm.testResultFail", { error: testResult.text })}
          </p>
        )}
      </form>
      {settings?.notice.endpoint && <ModelNotice notice={settings.notice} onChanged={() => load(false)} />}
    </section>
  );
}

/** The notice of what is sent where, and the parent's agreement to it: the
 * companion uses no model until it is agreed (for this address). */
export function ModelNotice({ notice, onChanged }: { notice: ModelNoticeView; onChanged: () => Promise<void> }) {
  const t = useT();
  const { locale } = useLocale();
  const [checked, setChecked] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  async function act(agree: boolean) {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      if (agree) await api.llmNoticeAgree();
      else await api.llmNoticeWithdraw();
      setChecked(false);
      await onChanged();
    } catch (e) {
      setError(t("llm.notice.error", { error: errorText(e) }));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="notice-block" data-testid="llm-notice" data-agreed={String(notice.agreed_at !== null)}>
      <h3 className="section-subtitle">{t("llm.notice.title")}</h3>
      <p className="notice-text" data-testid="llm-notice-text" style={{ whiteSpace: "pre-line" }}>
        {locale === "en" ? notice.text_en : notice.text_zh}
      </p>
      {notice.agreed_at ? (
        <div className="button-row">
          <p className="banner banner-ok" role="status" data-testid="llm-notice-agreed">
            {t("llm.notice.agreed", { at: new Date(notice.agreed_at).toLocaleString(locale) })}
          </p>
          <button type="button" className="btn btn-secondary" data-testid="llm-notice-withdraw" disabled={busy} onClick={() => void act(false)}>
            {t("llm.notice.withdraw")}
          </button>
        </div>
      ) : (
        <>
          <p className="banner banner-info" data-testid="llm-notice-waiting">
            {t("llm.notice.waiting")}
          </p>
          <label className="checkbox">
            <input type="checkbox" data-testid="llm-notice-check" checked={checked} onChange={(e) => setChecked(e.target.checked)} />
            {t("llm.notice.agree")}
          </label>
          <div className="button-row">
            <button
              type="button"
              className="btn btn-primary"
              data-testid="llm-notice-agree"
              disabled={busy || !checked}
              onClick={() => void act(true)}
            >
              {t("llm.notice.agreeButton")}
            </button>
          </div>
        </>
      )}
      {error && (
        <p className="banner banner-error" role="alert" data-testid="llm-notice-error">
          {error}
        </p>
      )}
    </div>
  );
}
