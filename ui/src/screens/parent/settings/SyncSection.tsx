import { useCallback, useEffect, useState, type FormEvent } from "react";
import * as api from "../../../api";
import type { AccountStatus, DeviceView, PairingCode, SyncView } from "../../../api";
import { Field } from "../../../components/Field";
import { announceSync, formatSyncTime } from "../../../components/SyncIndicator";
import { errorText } from "../../../errors";
import { useLocale, useT, type MessageKey } from "../../../i18n";

type Mode = "signup" | "login";

interface FormState {
  server: string;
  email: string;
  password: string;
  family: string;
  deviceName: string;
}

type FormErrors = Partial<Record<"server" | "email" | "password" | "deviceName", MessageKey>>;

/** What the parent typed, checked before anything is sent (the server checks again). */
export function validateAccount(f: FormState, mode: Mode): FormErrors {
  const errors: FormErrors = {};
  if (!/^https?:\/\/\S+$/i.test(f.server.trim())) errors.server = "sync.err.server";
  if (!/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(f.email.trim())) errors.email = "sync.err.email";
  if (mode === "signup" ? [...f.password].length < 8 : f.password.length === 0) errors.password = "sync.err.password";
  if (!f.deviceName.trim()) errors.deviceName = "sync.err.deviceName";
  return errors;
}

/** Kept as a key and its values, so it follows a change of language. */
type Message = { ok: boolean; key: MessageKey; vars?: Record<string, string> };

/**
 * Settings → "家庭账号与同步 / Family account and sync": a parent creates or
 * signs in to the family's account on a sync server, pairs a child's tablet
 * with a one-time code, sees the family's devices (and removes one), turns
 * sync on or off, and sees what syncs and when it last did. The same
 * functions as `deskmate account|devices|sync` in the core.
 */
export function SyncSection() {
  const t = useT();
  const [view, setView] = useState<SyncView | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [message, setMessage] = useState<Message | null>(null);

  const load = useCallback(async () => {
    try {
      setView(await api.syncView());
      setLoadError(null);
    } catch (e) {
      setLoadError(errorText(e));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const changed = useCallback((next: SyncView) => {
    setView(next);
    announceSync(next);
  }, []);

  return (
    <section className="card" aria-labelledby="settings-sync-title" data-testid="sync-settings">
      <h2 id="settings-sync-title" className="section-title">
        {t("sync.title")}
      </h2>
      <p className="muted">{t("sync.intro")}</p>
      {loadError && (
        <p className="banner banner-error" role="alert" data-testid="sync-load-error">
          {t("sync.loadError", { error: loadError })}
        </p>
      )}
      {message && (
        <p className={message.ok ? "banner banner-ok" : "banner banner-error"} role={message.ok ? "status" : "alert"} data-testid="sync-message">
          {t(message.key, message.vars)}
        </p>
      )}
      {view && !view.signed_in && <AccountForm onSignedIn={() => void load()} onMessage={setMessage} />}
      {view && view.signed_in && <SignedInPanel view={view} onChanged={changed} onSignedOut={() => void load()} onMessage={setMessage} />}
    </section>
  );
}

/** Create an account or sign in to one. */
function AccountForm({ onSignedIn, onMessage }: { onSignedIn: () => void; onMessage: (m: Message | null) => void }) {
  const t = useT();
  const [mode, setMode] = useState<Mode>("signup");
  const [form, setForm] = useState<FormState>({ server: "", email: "", password: "", family: "", deviceName: "desktop" });
  const [errors, setErrors] = useState<FormErrors>({});
  const [busy, setBusy] = useState(false);

  function set<K extends keyof FormState>(k: K, v: string) {
    setForm((f) => ({ ...f, [k]: v }));
    setErrors({});
    onMessage(null);
  }

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    if (busy) return;
    const found = validateAccount(form, mode);
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    onMessage(null);
    const server = form.server.trim();
    const who = { email: form.email.trim(), password: form.password, device_name: form.deviceName.trim() };
    try {
      if (mode === "signup") await api.syncSignup(server, { ...who, family_name: form.family.trim() || null });
      else await api.syncLogin(server, who);
      setForm((f) => ({ ...f, password: "" }));
      onSignedIn();
    } catch (e) {
      onMessage({ ok: false, key: "sync.failed", vars: { error: errorText(e) } });
    } finally {
      setBusy(false);
    }
  }

  const err = (k: keyof FormErrors) => (errors[k] ? t(errors[k]!) : undefined);
  return (
    <form className="form" onSubmit={submit} noValidate data-testid="sync-account-form">
      <div className="button-row" role="tablist">
        {(["signup", "login"] as const).map((m) => (
          <button
            key={m}
            type="button"
            role="tab"
            aria-selected={mode === m}
            className={mode === m ? "btn btn-primary" : "btn btn-secondary"}
            data-testid={`sync-mode-${m}`}
            onClick={() => setMode(m)}
          >
            {t(m === "signup" ? "sync.modeSignup" : "sync.modeLogin")}
          </button>
        ))}
      </div>
      <Field id="sync-server" label={t("sync.server")} hint={t("sync.serverHint")} error={err("server")}>
        <input id="sync-server" data-testid="sync-server" className="input" type="url" autoComplete="off" spellCheck={false} value={form.server} onChange={(e) => set("server", e.target.value)} />
      </Field>
      <div className="form-row">
        <Field id="sync-email" label={t("sync.email")} error={err("email")}>
          <input id="sync-email" data-testid="sync-email" className="input" type="email" autoComplete="username" value={form.email} onChange={(e) => set("email", e.target.value)} />
        </Field>
        <Field id="sync-password" label={t("sync.password")} hint={mode === "signup" ? t("sync.passwordHint") : undefined} error={err("password")}>
          <input
            id="sync-password"
            data-testid="sync-password"
            className="input"
            type="password"
            autoComplete={mode === "signup" ? "new-password" : "current-password"}
            value={form.password}
            onChange={(e) => set("password", e.target.value)}
          />
        </Field>
      </div>
      <div className="form-row">
        {mode === "signup" && (
          <Field id="sync-family" label={t("sync.family")}>
            <input id="sync-family" data-testid="sync-family" className="input" type="text" autoComplete="off" value={form.family} onChange={(e) => set("family", e.target.value)} />
          </Field>
        )}
        <Field id="sync-device-name" label={t("sync.deviceName")} error={err("deviceName")}>
          <input id="sync-device-name" data-testid="sync-device-name" className="input" type="text" autoComplete="off" value={form.deviceName} onChange={(e) => set("deviceName", e.target.value)} />
        </Field>
      </div>
      <div className="button-row">
        <button type="submit" className="btn btn-primary" data-testid="sync-submit" disabled={busy}>
          {busy ? t("sync.working") : t(mode === "signup" ? "sync.signup" : "sync.login")}
        </button>
      </div>
    </form>
  );
}

/** The signed-in device: the account, sync on or off, its state, the devices, pairing, signing out. */
function SignedInPanel({
  view,
  onChanged,
  onSignedOut,
  onMessage,
}: {
  view: SyncView;
  onChanged: (v: SyncView) => void;
  onSignedOut: () => void;
  onMessage: (m: Message | null) => void;
}) {
  const t = useT();
  const { locale } = useLocale();
  const [account, setAccount] = useState<AccountStatus | null | undefined>(undefined);
  const [devices, setDevices] = useState<DeviceView[] | null>(null);
  const [devicesError, setDevicesError] = useState<string | null>(null);
  const [code, setCode] = useState<PairingCode | null>(null);
  const [confirm, setConfirm] = useState<string | null>(null);
  const [busy, setBusy] = useState<null | "toggle" | "now" | "pair" | "remove" | "logout">(null);

  const loadDevices = useCallback(async () => {
    try {
      setDevices(await api.syncDevices());
      setDevicesError(null);
    } catch (e) {
      setDevicesError(errorText(e));
    }
  }, []);

  useEffect(() => {
    void (async () => {
      try {
        setAccount(await api.syncAccount());
      } catch {
        setAccount(null);
      }
    })();
    void loadDevices();
  }, [loadDevices]);

  /** Runs one action, saying its failure in the section's banner. */
  async function act(kind: NonNullable<typeof busy>, work: () => Promise<void>) {
    if (busy) return;
    setBusy(kind);
    onMessage(null);
    try {
      await work();
    } catch (e) {
      onMessage({ ok: false, key: "sync.failed", vars: { error: errorText(e) } });
    } finally {
      setBusy(null);
    }
  }

  const when = (at: string | null | undefined) => (at ? formatSyncTime(at, locale) : null);
  const last = when(view.last_sync_at);
  const isParent = !!account?.account_id;

  return (
    <div className="stack" data-testid="sync-signed-in" data-busy={busy ?? ""}>
      <p data-testid="sync-signed-in-to">
        <strong>{t("sync.signedIn", { server: view.server_url ?? "" })}</strong>
        <br />
        <span className="muted" data-testid="sync-account">
          {account === undefined
            ? t("common.loading")
            : account === null
              ? t("sync.accountUnknown")
              : account.email
                ? t("sync.account", { email: account.email, family: account.family_name })
                : t("sync.accountPaired", { family: account.family_name })}
        </span>
      </p>

      <div className="form">
        <label className="check-row">
          <input
            type="checkbox"
            data-testid="sync-enabled"
            checked={view.enabled}
            disabled={busy !== null}
            onChange={(e) => {
              const on = e.target.checked;
              void act("toggle", async () => onChanged(await api.syncSet(on, view.transcripts)));
            }}
          />{" "}
          <strong>{t("sync.enabled")}</strong> — <span className="muted">{t("sync.enabledHint")}</span>
        </label>
        <label className="check-row">
          <input
            type="checkbox"
            data-testid="sync-transcripts"
            checked={view.transcripts}
            disabled={busy !== null || !view.enabled}
            onChange={(e) => {
              const transcripts = e.target.checked;
              void act("toggle", async () => onChanged(await api.syncSet(true, transcripts)));
            }}
          />{" "}
          {t("sync.transcripts")}
        </label>
      </div>

      <ul className="plain-list" data-testid="sync-state" data-enabled={String(view.enabled)} data-running={String(view.running)}>
        <li data-testid="sync-on">{t(view.enabled ? "sync.on" : "sync.off")}</li>
        <li data-testid="sync-running">{t(view.running ? "sync.running" : "sync.notRunning")}</li>
        <li data-testid="sync-last">{last ? t("sync.last", { when: last }) : t("sync.notYet")}</li>
        {view.pending > 0 && <li data-testid="sync-pending">{t("sync.pending", { count: String(view.pending) })}</li>}
        {view.last_error && (
          <li className="text-error" data-testid="sync-last-error">
            {t("sync.lastError", { error: view.last_error })}
          </li>
        )}
      </ul>
      <div className="button-row">
        <button
          type="button"
          className="btn btn-primary"
          data-testid="sync-now"
          disabled={busy !== null || !view.enabled}
          onClick={() =>
            void act("now", async () => {
              try {
                onChanged(await api.syncNow());
              } finally {
                // The round's outcome (its error too) is in the state.
                onChanged(await api.syncView());
              }
            })
          }
        >
          {busy === "now" ? t("sync.syncing") : t("sync.now")}
        </button>
      </div>

      <h3 className="subsection-title">{t("sync.what")}</h3>
      <ul className="tag-list" data-testid="sync-kinds">
        {view.kinds.map((k) => (
          <li key={k} className="tag" data-testid="sync-kind" data-kind={k}>
            {t(`sync.kind.${k}` as MessageKey)}
          </li>
        ))}
      </ul>
      <p className="muted small">{t("sync.neverSynced")}</p>

      <h3 className="subsection-title">{t("sync.devices")}</h3>
      {devicesError && (
        <p className="banner banner-error" role="alert" data-testid="sync-devices-error">
          {t("sync.devicesError", { error: devicesError })}
        </p>
      )}
      {devices && (
        <ul className="plain-list" data-testid="sync-devices">
          {devices.map((d) => {
            const self = d.id === view.device_id;
            const seen = when(d.last_seen_at);
            return (
              <li key={d.id} data-testid="sync-device" data-name={d.name} data-kind={d.kind}>
                <strong>{d.name}</strong> <span className="tag">{t(d.kind === "paired" ? "sync.deviceKind.paired" : "sync.deviceKind.parent")}</span>
                {self && <span className="tag tag-ok"> {t("sync.thisDevice")}</span>}
                {seen && <span className="muted small"> · {t("sync.lastSeen", { when: seen })}</span>}
                {!self && isParent && confirm !== d.id && (
                  <button type="button" className="btn btn-ghost" data-testid="sync-device-remove" disabled={busy !== null} onClick={() => setConfirm(d.id)}>
                    {t("sync.remove")}
                  </button>
                )}
                {!self && confirm === d.id && (
                  <>
                    <button
                      type="button"
                      className="btn btn-danger"
                      data-testid="sync-device-remove-sure"
                      disabled={busy !== null}
                      onClick={() =>
                        void act("remove", async () => {
                          await api.syncRemoveDevice(d.id);
                          setConfirm(null);
                          onMessage({ ok: true, key: "sync.removed", vars: { name: d.name } });
                          await loadDevices();
                        })
                      }
                    >
                      {t("sync.removeSure", { name: d.name })}
                    </button>
                    <button type="button" className="btn btn-ghost" onClick={() => setConfirm(null)}>
                      {t("common.cancel")}
                    </button>
                  </>
                )}
              </li>
            );
          })}
        </ul>
      )}

      {isParent && (
        <div className="stack">
          <div className="button-row">
            <button
              type="button"
              className="btn btn-secondary"
              data-testid="sync-pair"
              disabled={busy !== null}
              onClick={() => void act("pair", async () => setCode(await api.syncPairingCode()))}
            >
              {t("sync.pair")}
            </button>
          </div>
          {code && (
            <div className="banner banner-info" data-testid="sync-pairing">
              <p>
                {t("sync.pairCode")}:{" "}
                <strong className="pairing-code" data-testid="sync-pair-code">
                  {code.code}
                </strong>
              </p>
              <p className="small">{t("sync.pairHint", { server: view.server_url ?? "", until: when(code.expires_at) ?? code.expires_at })}</p>
            </div>
          )}
        </div>
      )}

      <div className="button-row">
        <button
          type="button"
          className="btn btn-secondary"
          data-testid="sync-logout"
          disabled={busy !== null}
          onClick={() =>
            void act("logout", async () => {
              await api.syncLogout();
              announceSync(null);
              onSignedOut();
            })
          }
        >
          {t("sync.logout")}
        </button>
      </div>
    </div>
  );
}
