import { useState, type FormEvent } from "react";
import * as api from "../api";
import { Field } from "../components/Field";
import { errorText } from "../errors";
import { useT, type MessageKey } from "../i18n";

type Errors = Partial<Record<"server" | "code" | "deviceName", MessageKey>>;

/** The server URL, the 8 digits of the code (spaces and dashes allowed) and a device name. */
export function validateJoin(server: string, code: string, deviceName: string): Errors {
  const errors: Errors = {};
  if (!/^https?:\/\/\S+$/i.test(server.trim())) errors.server = "sync.err.server";
  if (!/^\d{8}$/.test(code.replace(/[\s-]/g, ""))) errors.code = "sync.err.code";
  if (!deviceName.trim()) errors.deviceName = "sync.err.deviceName";
  return errors;
}

/**
 * First run on a child's tablet: join the family with the one-time code a
 * parent's device shows (Settings → Family account and sync). Sync turns on
 * and the family's children come over, so the profile picker shows them.
 */
export function JoinFamily({ onJoined, onCancel }: { onJoined: () => void; onCancel: () => void }) {
  const t = useT();
  const [server, setServer] = useState("");
  const [code, setCode] = useState("");
  const [deviceName, setDeviceName] = useState("tablet");
  const [errors, setErrors] = useState<Errors>({});
  const [failed, setFailed] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    if (busy) return;
    const found = validateJoin(server, code, deviceName);
    setErrors(found);
    setFailed(null);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await api.syncJoin(server.trim(), { code: code.replace(/[\s-]/g, ""), device_name: deviceName.trim() });
      onJoined();
    } catch (e) {
      setFailed(errorText(e));
      setBusy(false);
    }
  }

  const err = (k: keyof Errors) => (errors[k] ? t(errors[k]!) : undefined);
  return (
    <form className="card form" onSubmit={submit} noValidate data-testid="join-family">
      <h2 className="section-title">{t("join.title")}</h2>
      <p className="muted">{t("join.intro")}</p>
      <Field id="join-server" label={t("sync.server")} hint={t("sync.serverHint")} error={err("server")}>
        <input id="join-server" data-testid="join-server" className="input" type="url" autoComplete="off" spellCheck={false} value={server} onChange={(e) => setServer(e.target.value)} />
      </Field>
      <div className="form-row">
        <Field id="join-code" label={t("join.code")} error={err("code")}>
          <input id="join-code" data-testid="join-code" className="input" inputMode="numeric" autoComplete="off" value={code} onChange={(e) => setCode(e.target.value)} />
        </Field>
        <Field id="join-device-name" label={t("sync.deviceName")} error={err("deviceName")}>
          <input id="join-device-name" data-testid="join-device-name" className="input" type="text" autoComplete="off" value={deviceName} onChange={(e) => setDeviceName(e.target.value)} />
        </Field>
      </div>
      {failed && (
        <p className="banner banner-error" role="alert" data-testid="join-error">
          {t("sync.failed", { error: failed })}
        </p>
      )}
      <div className="button-row">
        <button type="submit" className="btn btn-primary" data-testid="join-submit" disabled={busy}>
          {busy ? t("sync.working") : t("join.submit")}
        </button>
        <button type="button" className="btn btn-ghost" data-testid="join-cancel" disabled={busy} onClick={onCancel}>
          {t("join.back")}
        </button>
      </div>
    </form>
  );
}
