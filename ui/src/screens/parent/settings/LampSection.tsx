import { useState, type FormEvent } from "react";
import * as api from "../../../api";
import { eventLabel, LampPanel } from "../../../components/lamp/LampPanel";
import { Field } from "../../../components/Field";
import { errorText } from "../../../errors";
import { useT, type MessageKey } from "../../../i18n";
import { lampAttached } from "../../../lamp/reducer";
import { useLamp } from "../../../lamp/useLamp";

const CONNECTION_KEYS: Record<string, MessageKey> = {
  disconnected: "lamp.conn.disconnected",
  connecting: "lamp.conn.connecting",
  connected: "lamp.conn.connected",
};

/** Settings → "台灯 / Desk lamp": a port (empty = find by USB id), Connect / Disconnect, the connection state and the panel. */
export function LampSection() {
  const t = useT();
  const { ui, setState } = useLamp();
  const [port, setPort] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const connection = ui.state?.connection ?? "disconnected";

  async function connect(ev: FormEvent) {
    ev.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      const p = port.trim();
      const s = await api.lampConnect(p ? p : null);
      if (s) setState(s);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  async function disconnect() {
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await api.lampDisconnect();
      setState(ui.state ? { ...ui.state, connection: "disconnected" } : null);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="settings-lamp-title" data-testid="lamp-settings">
      <div className="section-head">
        <div>
          <h2 id="settings-lamp-title" className="section-title">
            {t("lamp.settingsTitle")}
          </h2>
          <p className="muted">{t("lamp.intro")}</p>
        </div>
        <span className={`tag lamp-state lamp-state-${connection}`} data-testid="lamp-state" data-state={connection}>
          {t(CONNECTION_KEYS[connection] ?? "lamp.conn.disconnected")}
          {ui.state?.port ? ` · ${ui.state.port}` : ""}
        </span>
      </div>
      <form className="form" onSubmit={connect} noValidate>
        <Field id="lamp-port" label={t("lamp.port")} hint={t("lamp.portHint")}>
          <input
            data-testid="lamp-port"
            className="input"
            type="text"
            autoComplete="off"
            spellCheck={false}
            placeholder={t("lamp.portPlaceholder")}
            value={port}
            onChange={(e) => setPort(e.target.value)}
          />
        </Field>
        {error && (
          <p className="banner banner-error" role="alert" data-testid="lamp-error">
            {error}
          </p>
        )}
        <div className="button-row">
          <button type="submit" className="btn btn-primary" data-testid="lamp-connect" disabled={busy}>
            {busy ? t("lamp.connecting") : t("lamp.connect")}
          </button>
          <button
            type="button"
            className="btn btn-secondary"
            data-testid="lamp-disconnect"
            disabled={busy || connection === "disconnected"}
            onClick={() => void disconnect()}
          >
            {t("lamp.disconnect")}
          </button>
        </div>
      </form>
      {ui.state?.device && (
        <p className="muted small" data-testid="lamp-device">
          {t("lamp.device", { model: ui.state.device.model, firmware: ui.state.device.firmware })}
        </p>
      )}
      {lampAttached(ui) && ui.state && (
        <LampPanel state={ui.state} lastEvent={ui.lastEvent ? eventLabel(t, ui.lastEvent) : null} />
      )}
    </section>
  );
}
