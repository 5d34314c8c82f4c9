import { useCallback, useEffect, useState } from "react";
import * as api from "../../api";
import type { AppStatus, Check, CheckStatus } from "../../api";
import { LocaleSwitch } from "../../components/LocaleSwitch";
import { errorText } from "../../errors";
import { useT } from "../../i18n";
import { LampSection } from "./settings/LampSection";
import { LlmSection } from "./settings/LlmSection";
import { ModelsSection } from "./settings/ModelsSection";
import { SyncSection } from "./settings/SyncSection";
import { VoiceSection } from "./settings/VoiceSection";

const ICONS: Record<CheckStatus, string> = { ok: "✓", warn: "!", fail: "✕" };

export function SettingsTab({ status }: { status: AppStatus | null }) {
  const t = useT();
  const [checks, setChecks] = useState<Check[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [running, setRunning] = useState(false);

  const run = useCallback(async () => {
    setRunning(true);
    setError(null);
    try {
      setChecks(await api.doctor());
    } catch (e) {
      setError(errorText(e));
    } finally {
      setRunning(false);
    }
  }, []);

  useEffect(() => {
    void run();
  }, [run]);

  return (
    <div className="stack">
      <section className="card" aria-labelledby="settings-language-title">
        <h2 id="settings-language-title" className="section-title">
          {t("settings.language")}
        </h2>
        <p className="muted">{t("settings.languageHint")}</p>
        <LocaleSwitch testIdPrefix="settings-locale" large />
        {status?.data_dir && (
          <p className="muted small" data-testid="data-dir">
            {t("settings.dataDir", { dir: status.data_dir })}
          </p>
        )}
      </section>

      <LlmSection />
      <ModelsSection />
      <VoiceSection />
      <LampSection />
      <SyncSection />

      <section className="card" aria-labelledby="settings-check-title" data-testid="doctor">
        <div className="section-head">
          <div>
            <h2 id="settings-check-title" className="section-title">
              {t("settings.check")}
            </h2>
            <p className="muted">{t("settings.checkIntro")}</p>
          </div>
          <button
            type="button"
            className="btn btn-secondary"
            data-testid="doctor-refresh"
            onClick={() => void run()}
            disabled={running}
          >
            {running ? t("settings.checking") : t("settings.recheck")}
          </button>
        </div>
        {error && (
          <p className="banner banner-error" role="alert">
            {t("settings.checkError", { error })}
          </p>
        )}
        {checks === null && running && <p className="muted">{t("settings.checking")}</p>}
        {checks !== null && checks.length === 0 && <p className="muted">{t("settings.checkEmpty")}</p>}
        {checks !== null && checks.length > 0 && (
          <ul className="check-list">
            {checks.map((c, i) => (
              <li key={`${c.name}-${i}`} className={`check check-${c.status}`} data-testid="doctor-check" data-status={c.status}>
                <span className={`check-icon check-icon-${c.status}`} aria-hidden="true">
                  {ICONS[c.status] ?? "?"}
                </span>
                <div className="check-text">
                  <div className="check-head">
                    <span className="check-name">{c.name}</span>
                    <span className={`tag tag-${c.status}`}>{t(`status.${c.status}`)}</span>
                  </div>
                  <p className="check-detail">{c.detail}</p>
                  {c.fix && (
                    <p className="check-fix">
                      <strong>{t("settings.fix")}</strong>
                      {c.fix}
                    </p>
                  )}
                </div>
              </li>
            ))}
          </ul>
        )}
      </section>
    </div>
  );
}
