import { useEffect, useState, type FormEvent } from "react";
import * as api from "../../../api";
import type { CloudVoice } from "../../../api";
import { Field } from "../../../components/Field";
import { errorText } from "../../../errors";
import { useLocale, useT, type MessageKey } from "../../../i18n";

interface FormState {
  baseUrl: string;
  model: string;
  voice: string;
  keyProvider: string;
}

const EMPTY: FormState = { baseUrl: "https://api.openai.com/v1", model: "tts-1", voice: "alloy", keyProvider: "openai" };

function formFrom(cloud: CloudVoice | null): FormState {
  if (!cloud) return EMPTY;
  return { baseUrl: cloud.base_url, model: cloud.model, voice: cloud.voice, keyProvider: cloud.key_provider ?? "" };
}

/** Kept as a key and its values, so it follows a change of language. */
type Message = { ok: boolean; key: MessageKey; vars?: Record<string, string> };

/** One of the section's plain text boxes, its test id being its field id.
 *  `Field` adds the id and the aria attributes, passed on to the input. */
function TextInput({
  id,
  value,
  onChange,
  type = "text",
  ...aria
}: {
  id: string;
  value: string;
  onChange: (v: string) => void;
  type?: "text" | "url";
  "aria-invalid"?: boolean;
  "aria-describedby"?: string;
}) {
  return (
    <input
      {...aria}
      id={id}
      data-testid={id}
      className="input"
      type={type}
      autoComplete="off"
      spellCheck={false}
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}

/** Settings → "反馈的声音 / Feedback voice": espeak-ng offline, or an OpenAI-compatible speech service with espeak-ng as the fallback. */
export function VoiceSection() {
  const t = useT();
  const { locale } = useLocale();
  const [cloud, setCloud] = useState<CloudVoice | null | undefined>(undefined);
  const [form, setForm] = useState<FormState>(EMPTY);
  const [errors, setErrors] = useState<{ baseUrl?: string; model?: string }>({});
  const [busy, setBusy] = useState<null | "save" | "offline" | "test">(null);
  const [message, setMessage] = useState<Message | null>(null);
  const [tested, setTested] = useState<Message | null>(null);

  useEffect(() => {
    void (async () => {
      try {
        const c = (await api.voiceSettingsGet()) ?? null;
        setCloud(c);
        setForm(formFrom(c));
      } catch (e) {
        setMessage({ ok: false, key: "voice.loadError", vars: { error: errorText(e) } });
      }
    })();
    // Read once; what the parent types is kept.
  }, []);

  function set<K extends keyof FormState>(k: K, v: string) {
    setForm((f) => ({ ...f, [k]: v }));
    setMessage(null);
    setErrors({});
  }

  async function save(ev: FormEvent) {
    ev.preventDefault();
    if (busy) return;
    const next: CloudVoice = {
      base_url: form.baseUrl.trim(),
      model: form.model.trim(),
      voice: form.voice.trim(),
      key_provider: form.keyProvider.trim() || null,
    };
    const errs: { baseUrl?: string; model?: string } = {};
    if (!/^https?:\/\//i.test(next.base_url)) errs.baseUrl = t("voice.err.baseUrl");
    if (!next.model || !next.voice) errs.model = t("voice.err.model");
    setErrors(errs);
    if (Object.keys(errs).length > 0) return;
    await store("save", next, "voice.saved");
  }

  async function store(kind: "save" | "offline", next: CloudVoice | null, done: MessageKey) {
    setBusy(kind);
    setMessage(null);
    setTested(null);
    try {
      await api.voiceSettingsSave(next);
      setCloud(next);
      setMessage({ ok: true, key: done });
    } catch (e) {
      setMessage({ ok: false, key: "voice.saveError", vars: { error: errorText(e) } });
    } finally {
      setBusy(null);
    }
  }

  async function test() {
    if (busy) return;
    setBusy("test");
    setTested(null);
    try {
      const r = await api.voiceTest(locale === "en" ? "en" : "zh");
      const seconds = r.seconds.toFixed(1);
      if (r.fell_back) setTested({ ok: false, key: "voice.testFellBack", vars: { error: r.fell_back } });
      else if (r.backend.startsWith("openai")) setTested({ ok: true, key: "voice.testCloud", vars: { seconds } });
      else setTested({ ok: true, key: "voice.testOffline", vars: { seconds } });
    } catch (e) {
      setTested({ ok: false, key: "voice.testError", vars: { error: errorText(e) } });
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="card" aria-labelledby="settings-voice-title" data-testid="voice-settings">
      <h2 id="settings-voice-title" className="section-title">
        {t("voice.title")}
      </h2>
      <p className="muted">{t("voice.intro")}</p>
      {cloud === null && (
        <p className="banner banner-info" data-testid="voice-offline-now">
          {t("voice.offlineNow")}
        </p>
      )}
      <form className="form" onSubmit={save} noValidate>
        <Field id="voice-base-url" label={t("voice.baseUrl")} hint={t("voice.baseUrlHint")} error={errors.baseUrl}>
          <TextInput id="voice-base-url" type="url" value={form.baseUrl} onChange={(v) => set("baseUrl", v)} />
        </Field>
        <div className="form-row">
          <Field id="voice-model" label={t("voice.model")} error={errors.model}>
            <TextInput id="voice-model" value={form.model} onChange={(v) => set("model", v)} />
          </Field>
          <Field id="voice-voice" label={t("voice.voice")}>
            <TextInput id="voice-voice" value={form.voice} onChange={(v) => set("voice", v)} />
          </Field>
        </div>
        <Field id="voice-key-provider" label={t("voice.keyProvider")} hint={t("voice.keyProviderHint")}>
          <TextInput id="voice-key-provider" value={form.keyProvider} onChange={(v) => set("keyProvider", v)} />
        </Field>
        {message && (
          <p className={message.ok ? "banner banner-ok" : "banner banner-error"} role={message.ok ? "status" : "alert"} data-testid="voice-message">
            {t(message.key, message.vars)}
          </p>
        )}
        <div className="button-row">
          <button type="submit" className="btn btn-primary" data-testid="voice-save" disabled={busy !== null}>
            {busy === "save" ? t("common.saving") : t("voice.save")}
          </button>
          <button
            type="button"
            className="btn btn-secondary"
            data-testid="voice-offline"
            disabled={busy !== null || !cloud}
            onClick={() => void store("offline", null, "voice.offlineSaved")}
          >
            {t("voice.offline")}
          </button>
          <button type="button" className="btn btn-secondary" data-testid="voice-test" disabled={busy !== null || cloud === undefined} onClick={() => void test()}>
            {busy === "test" ? t("voice.testing") : t("voice.test")}
          </button>
        </div>
        {tested && (
          <p className={tested.ok ? "banner banner-ok" : "banner banner-error"} role="status" data-testid="voice-test-result">
            {t(tested.key, tested.vars)}
          </p>
        )}
      </form>
    </section>
  );
}
