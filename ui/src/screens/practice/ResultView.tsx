import type { Material, PracticeResult } from "../../api";
import { Icon } from "../../components/Icon";
import { AccuracyRing } from "../../components/AccuracyRing";
import { useLocale, useT } from "../../i18n";
import { MarkedReference } from "./MarkedReference";
import { linesToSayAgain, zhLineNumber } from "../../practice/retake";

/** A line being said again: which, and what the microphone heard so far. */
export interface Retaking {
  line: number;
  partial: string;
  /** The take's task status line (queued, checking, …), if any. */
  status: string | null;
}

interface ResultViewProps {
  result: PracticeResult;
  material: Material;
  mode?: string;
  busy: boolean;
  error: string | null;
  onRetry: () => void;
  onDone: () => void;
  /** Say one unclear line again (only that line is recorded). */
  onRetake?: (line: number) => void;
  /** Stop listening to the line said again. */
  onRetakeStop?: () => void;
  retaking?: Retaking | null;
}

/** An RFC 3339 instant as the device's local date, YYYY-MM-DD (null if unreadable). */
export function localDate(iso: string): string | null {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return null;
  const p = (n: number) => String(n).padStart(2, "0");
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** Whole days from now until `iso` (at least 0). */
function daysUntil(iso: string, now: Date = new Date()): number {
  return Math.max(0, Math.round((new Date(iso).getTime() - now.getTime()) / 86_400_000));
}

/** A verdict: accuracy ring, passed or not, the text with its errors marked, feedback and the memory tip. */
export function ResultView({
  result,
  material,
  mode = "voice",
  busy,
  error,
  onRetry,
  onDone,
  onRetake,
  onRetakeStop,
  retaking = null,
}: ResultViewProps) {
  const t = useT();
  const { locale } = useLocale();
  const en = locale === "en";
  const feedback = en ? result.feedback?.en : result.feedback?.zh;
  const tip = en ? result.feedback?.tip_en : result.feedback?.tip_zh;
  const lines = result.lines && result.lines.length > 0 ? result.lines : material.body.split(/\r?\n/).filter((l) => l.trim());
  const pct = Math.round(Number(result.accuracy) || 0);
  const nextReview = result.next_review_at ? localDate(result.next_review_at) : null;
  const lineNo = (n: number) => (en ? n : zhLineNumber(n));
  const reAsks = onRetake ? linesToSayAgain(result) : [];
  return (
    <section className="card result" data-testid="result-screen" aria-labelledby="result-title">
      <div className="result-head">
        <AccuracyRing accuracy={result.accuracy} passed={result.passed} label={t("result.accuracyLabel", { pct })} />
        <div className="result-head-text">
          <h2 id="result-title" className="result-title" data-testid="result-passed" data-passed={String(result.passed)}>
            {result.passed ? t("result.passed") : t("result.notPassed")}
          </h2>
          <p className="muted" data-testid="attempt-count">
            {t("practice.attempt", { n: result.attempt_number })}
          </p>
          {feedback && (
            <p className="result-feedback" data-testid="feedback-text">
              {feedback}
            </p>
          )}
          {nextReview && result.next_review_at && (
            <p className="next-review" data-testid="next-review" data-date={nextReview}>
              {t("result.nextReview", {
                date: nextReview,
                days: result.review_interval_days ?? daysUntil(result.next_review_at),
              })}
            </p>
          )}
        </div>
      </div>
      {tip && (
        <p className="memory-tip" data-testid="memory-tip">
          <span className="memory-tip-icon" aria-hidden="true">
            <Icon name="bulb" />
          </span>
          <span>
            <strong>{t("result.tip")}</strong>
            {tip}
          </span>
        </p>
      )}
      {retaking ? (
        <div className="retake retake-listening" data-testid="retake-listening" data-line={retaking.line} aria-live="polite">
          <p>{retaking.status ?? t("result.retakeListening", { n: lineNo(retaking.line) })}</p>
          {retaking.partial && (
            <p className="partial-transcript" data-testid="retake-partial" lang={material.lang === "en" ? "en" : "zh-CN"}>
              {retaking.partial}
            </p>
          )}
          {!retaking.status && onRetakeStop && (
            <button type="button" className="btn btn-primary" data-testid="retake-stop" onClick={onRetakeStop}>
              {t("result.retakeStop")}
            </button>
          )}
        </div>
      ) : (
        reAsks.map(({ line, text }) => (
          <div className="retake" key={line} data-testid={`retake-ask-${line}`}>
            <p>{t("result.retakeAsk", { n: lineNo(line), text })}</p>
            <button
              type="button"
              className="btn btn-primary"
              data-testid={`retake-line-${line}`}
              disabled={busy}
              onClick={() => onRetake?.(line)}
            >
              <Icon name="mic" /> {t("result.retakeButton")}
            </button>
          </div>
        ))
      )}
      <h3 className="section-title">{t("result.textTitle")}</h3>
      <MarkedReference lines={lines} errors={result.errors ?? []} lang={material.lang} mode={mode} />
      {result.errors && result.errors.length > 0 && <MarkLegend />}
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
      <div className="result-actions">
        {result.passed ? (
          <button type="button" className="btn btn-primary btn-large" data-testid="done-button" onClick={onDone}>
            {t("result.done")}
          </button>
        ) : (
          <>
            <button
              type="button"
              className="btn btn-primary btn-large"
              data-testid="retry-button"
              onClick={onRetry}
              disabled={busy}
            >
              {t("result.retry")}
            </button>
            <button type="button" className="btn btn-secondary btn-large" onClick={onDone}>
              {t("result.later")}
            </button>
          </>
        )}
      </div>
    </section>
  );
}

function MarkLegend() {
  const t = useT();
  return (
    <ul className="mark-legend" aria-label={t("result.legend")}>
      <li>
        <span className="legend-swatch mark-omission" aria-hidden="true" />
        {t("error.omission")}
      </li>
      <li>
        <span className="legend-swatch mark-substitution" aria-hidden="true" />
        {t("error.substitution")}
      </li>
      <li>
        <span className="legend-swatch mark-insertion" aria-hidden="true" />
        {t("error.insertion")}
      </li>
      <li>
        <span className="legend-swatch mark-order" aria-hidden="true" />
        {t("error.order")}
      </li>
      <li>
        <span className="legend-swatch mark-uncertain" aria-hidden="true" />
        {t("result.sayAgain")}
      </li>
    </ul>
  );
}
