import { useCallback, useEffect, useReducer, useRef, useState, type FormEvent } from "react";
import { Icon } from "../../components/Icon";
import * as api from "../../api";
import type { Material, PracticeMode, PracticeView, Profile } from "../../api";
import { Header } from "../../components/Header";
import { errorText } from "../../errors";
import { subscribe } from "../../events";
import { useT, type MessageKey } from "../../i18n";
import { initialPracticeUi, isBusy, practiceReducer, retakingLine, shownResult } from "../../practice/reducer";
import { byline } from "../../materialText";
import { hintLines } from "../../practice/hints";
import { ResultView } from "./ResultView";

/** How the text is shown while practising: all of it, hints (how each line starts), or none. */
export type TextMode = "show" | "hints" | "hide";

const TEXT_MODES: { mode: TextMode; key: MessageKey }[] = [
  { mode: "show", key: "practice.text.show" },
  { mode: "hints", key: "practice.text.hints" },
  { mode: "hide", key: "practice.text.hide" },
];

const TASK_KEYS: Record<string, MessageKey> = {
  listening: "practice.listening",
  queued: "practice.task.queued",
  transcribing: "practice.task.transcribing",
  checking: "practice.task.checking",
  done: "practice.task.done",
  failed: "practice.task.failed",
};

interface PracticeProps {
  profile: Profile;
  /** The material to practise (a new practice is started)… */
  materialId: string;
  /** …shown at once while the practice starts, when known. */
  material?: Material | null;
  /** A practice to continue instead (after an app restart). */
  resume?: PracticeView | null;
  onBack: () => void;
}

/**
 * Recitation practice, tablet first: the text (hide or show), 朗读背诵 by
 * voice with one big record button, or 默写 typed; submissions are checked
 * in the background and their progress arrives as events; the verdict is
 * shown by `ResultView`.
 */
export function Practice({ profile, materialId, material, resume, onBack }: PracticeProps) {
  const t = useT();
  const [ui, dispatch] = useReducer(practiceReducer, { ...initialPracticeUi, view: resume ?? null });
  const [mode, setMode] = useState<PracticeMode>(resume?.mode ?? "voice");
  const [textMode, setTextMode] = useState<TextMode>(resume?.is_review ? "hide" : "show");
  const [typed, setTyped] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);
  const firstView = useRef(true);
  const view = ui.view;
  const shown = view?.material ?? material ?? null;
  const practiceId = view?.id ?? null;
  const stateName = view?.state.state ?? "idle";
  const result = shownResult(ui);
  const checking = isBusy(ui);

  const run = useCallback(async <T,>(f: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(null);
    try {
      return await f();
    } catch (e) {
      setError(errorText(e));
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);

  const start = useCallback(
    async (m: PracticeMode) => {
      const v = await run(() => api.practiceStart(profile.id, materialId, m));
      if (v) {
        dispatch({ type: "view", view: v });
        if (v.mode) setMode(v.mode);
        // A review starts with the text hidden (the child can still peek or ask for hints).
        if (v.is_review && firstView.current) setTextMode("hide");
        firstView.current = false;
      }
    },
    [run, profile.id, materialId],
  );

  useEffect(() => {
    if (resume || started.current) return;
    started.current = true;
    void start(mode);
    // Start once, with the mode chosen at first.
  }, []);

  useEffect(() => {
    const offs = [
      subscribe("practice://level", (event) => dispatch({ type: "level", event })),
      subscribe("practice://partial", (event) => dispatch({ type: "partial", event })),
      subscribe("practice://task", (event) => dispatch({ type: "task", event })),
    ];
    return () => offs.forEach((off) => off());
  }, []);

  useEffect(() => {
    if (ui.task?.status === "done" || ui.task?.status === "failed") setBusy(false);
  }, [ui.task?.status]);

  async function switchMode(next: PracticeMode) {
    if (next === mode || checking || stateName === "listening") return;
    setMode(next);
    await start(next);
  }

  async function toggleRecord() {
    if (!practiceId || busy) return;
    if (stateName === "listening") {
      const task = await run(() => api.practiceRecordStop(practiceId));
      if (task?.task_id) dispatch({ type: "submitted", task_id: task.task_id });
    } else {
      // The answer carries the attempt's task id; its events follow under it.
      const task = await run(() => api.practiceRecordStart(practiceId));
      if (task) dispatch({ type: "listening" });
    }
  }

  /** Say one unclear line again: only that line is recorded, merged into the same attempt. */
  async function retake(line: number) {
    if (!practiceId || busy) return;
    // Marked first: the microphone's first event may come before the answer.
    dispatch({ type: "retaking", line });
    const task = await run(() => api.practiceRetakeStart(practiceId, line));
    if (!task) dispatch({ type: "retake_refused" });
  }

  async function retakeStop() {
    if (!practiceId) return;
    await run(() => api.practiceRecordStop(practiceId));
  }

  async function submitText(ev: FormEvent) {
    ev.preventDefault();
    if (!practiceId || busy || checking) return;
    if (!typed.trim()) {
      setError(t("practice.typeFirst"));
      return;
    }
    const task = await run(() => api.practiceSubmitText(practiceId, typed));
    if (task?.task_id) dispatch({ type: "submitted", task_id: task.task_id });
  }

  async function retry() {
    if (!practiceId) return;
    const v = await run(() => api.practiceRetry(practiceId));
    if (v) {
      dispatch({ type: "view", view: v });
      setTyped("");
    }
  }

  async function leave() {
    if (practiceId) {
      try {
        await api.practiceLeave(practiceId);
      } catch {
        // Leaving always works for the child; the core forgets the practice on its own.
      }
    }
    onBack();
  }

  const attemptNo = (view?.attempts ?? 0) + 1;
  const retakeLine = retakingLine(ui);
  const retakeStatus =
    retakeLine !== null && ui.task && ui.task.status !== "listening" && !["done", "failed"].includes(ui.task.status)
      ? t(TASK_KEYS[ui.task.status] ?? "practice.task.checking")
      : null;
  const retakeFailed =
    retakeLine === null && ui.task?.status === "failed" && result
      ? t("practice.task.failed", { error: ui.task.error ? errorText(ui.task.error) : "" })
      : null;
  const listening = stateName === "listening";
  const by = shown ? byline(shown) : null;
  const langAttr = shown?.lang === "en" ? "en" : "zh-CN";

  return (
    <>
      <Header onBack={() => void leave()} backLabel={t("material.backToLibrary")} />
      <main className="content practice" data-testid="practice-screen" data-state={stateName}>
        {result && shown ? (
          <ResultView
            result={result}
            material={shown}
            mode={view?.mode ?? mode}
            busy={busy || retakeLine !== null}
            error={error ?? retakeFailed}
            onRetry={() => void retry()}
            onDone={() => void leave()}
            onRetake={(line) => void retake(line)}
            onRetakeStop={() => void retakeStop()}
            retaking={retakeLine === null ? null : { line: retakeLine, partial: ui.partial, status: retakeStatus }}
          />
        ) : (
          <div className="practice-grid">
            <article className="card reading practice-text" data-testid="material-detail" lang={langAttr}>
              <div className="practice-text-head">
                <div>
                  <h1 className="reading-title" data-testid="material-detail-title">
                    {shown?.title ?? t("common.loading")}
                  </h1>
                  {by && <p className="reading-byline">{by}</p>}
                </div>
                <div className="segmented" role="group" aria-label={t("practice.text.label")} data-testid="text-mode">
                  {TEXT_MODES.map((m) => (
                    <button
                      key={m.mode}
                      type="button"
                      className="segmented-item"
                      data-testid={`text-mode-${m.mode}`}
                      aria-pressed={textMode === m.mode}
                      onClick={() => setTextMode(m.mode)}
                    >
                      {t(m.key)}
                    </button>
                  ))}
                </div>
              </div>
              {view?.is_review && <span className="tag tag-warn">{t("practice.review")}</span>}
              {textMode === "show" ? (
                <div className="reading-body" data-testid="material-detail-body">
                  {shown?.body ?? ""}
                </div>
              ) : textMode === "hints" ? (
                <div className="reading-body reading-hints" data-testid="material-hints" aria-label={t("practice.text.hintsLabel")}>
                  {hintLines(shown?.body ?? "", shown?.lang ?? "zh").map((l, i) => (
                    <span key={i} className="hint-line" data-testid="hint-line">
                      {l}
                    </span>
                  ))}
                </div>
              ) : (
                <div className="reading-hidden" aria-label={t("practice.textHidden")}>
                  {(shown?.body ?? "")
                    .split(/\r?\n/)
                    .filter((l) => l.trim())
                    .map((l, i) => (
                      <span key={i} className="hidden-line" style={{ width: `${Math.min(100, 12 + Array.from(l).length * 4)}%` }} />
                    ))}
                  <p className="muted">{t("practice.textHidden")}</p>
                </div>
              )}
              <button type="button" className="btn btn-secondary" data-testid="detail-back" onClick={() => void leave()}>
                <span aria-hidden="true">←</span> {t("material.backToLibrary")}
              </button>
            </article>

            <section className="card practice-panel" aria-label={t("practice.panel")}>
              <div className="practice-panel-head">
                <div className="segmented segmented-large" role="group" aria-label={t("practice.mode")}>
                  <button
                    type="button"
                    className="segmented-item"
                    data-testid="practice-mode-voice"
                    aria-pressed={mode === "voice"}
                    disabled={checking || listening}
                    onClick={() => void switchMode("voice")}
                  >
                    {t("practice.modeVoice")}
                  </button>
                  <button
                    type="button"
                    className="segmented-item"
                    data-testid="practice-mode-text"
                    aria-pressed={mode === "text"}
                    disabled={checking || listening}
                    onClick={() => void switchMode("text")}
                  >
                    {t("practice.modeText")}
                  </button>
                </div>
                <span className="tag attempt-tag" data-testid="attempt-count">
                  {t("practice.attempt", { n: attemptNo })}
                </span>
              </div>

              {mode === "voice" ? (
                <div className="voice">
                  <button
                    type="button"
                    className={listening ? "record-button is-listening" : "record-button"}
                    data-testid="record-button"
                    data-state={listening ? "listening" : "idle"}
                    aria-pressed={listening}
                    disabled={!practiceId || checking || (busy && !listening)}
                    onClick={() => void toggleRecord()}
                  >
                    <span className="record-icon" aria-hidden="true">
                      {listening ? <span className="record-stop-square" /> : <Icon name="mic" size={44} />}
                    </span>
                    <span className="record-label">{listening ? t("practice.stop") : t("practice.record")}</span>
                  </button>
                  <div
                    className="level-meter"
                    data-testid="level-meter"
                    role="meter"
                    aria-label={t("practice.level")}
                    aria-valuemin={0}
                    aria-valuemax={100}
                    aria-valuenow={Math.round(ui.level * 100)}
                  >
                    <span className="level-fill" style={{ width: `${Math.round(ui.level * 100)}%` }} />
                  </div>
                  <p className="partial-transcript" data-testid="partial-transcript" aria-live="polite" lang={langAttr}>
                    {ui.partial || (listening ? t("practice.listeningHint") : "")}
                  </p>
                </div>
              ) : (
                <form className="form typed" onSubmit={submitText}>
                  <label className="field-label" htmlFor="text-answer">
                    {t("practice.typeLabel")}
                  </label>
                  <textarea
                    id="text-answer"
                    data-testid="text-answer"
                    className="input textarea typed-answer"
                    lang={langAttr}
                    value={typed}
                    disabled={checking}
                    onChange={(e) => setTyped(e.target.value)}
                  />
                  <button
                    type="submit"
                    className="btn btn-primary btn-large"
                    data-testid="text-submit"
                    disabled={!practiceId || checking || busy}
                  >
                    {t("practice.submit")}
                  </button>
                </form>
              )}

              <div className="practice-status" aria-live="polite">
                {ui.task ? (
                  <p
                    className={ui.task.status === "failed" ? "task-status task-failed" : "task-status"}
                    data-testid="task-status"
                    data-status={ui.task.status}
                  >
                    {!["done", "failed"].includes(ui.task.status) && <span className="spinner" aria-hidden="true" />}
                    {ui.task.status === "failed"
                      ? t("practice.task.failed", { error: ui.task.error ? errorText(ui.task.error) : "" })
                      : t(TASK_KEYS[ui.task.status] ?? "practice.task.checking")}
                  </p>
                ) : (
                  <p className="muted">
                    {!practiceId
                      ? t("practice.starting")
                      : listening
                        ? t("practice.listening")
                        : mode === "voice"
                          ? t("practice.voiceHint")
                          : t("practice.textHint")}
                  </p>
                )}
                {error && (
                  <p className="banner banner-error" role="alert" data-testid="practice-error">
                    {error}
                  </p>
                )}
              </div>
            </section>
          </div>
        )}
      </main>
    </>
  );
}
