import { lazy, Suspense, useEffect, useState } from "react";
import * as api from "../../api";
import type { DueReview, KeepsakeFormat, KeepsakeWritten, ListedAttempt, Report, ReportKind } from "../../api";
import { errorText } from "../../errors";
import { ChildPicker, useChildren } from "../../components/ChildPicker";
import { useT, type MessageKey, type TFunction } from "../../i18n";
import { materialLangAttr } from "../../materialText";

const ReportCharts = lazy(() => import("./ReportCharts"));

/** Today in the device's time zone, as YYYY-MM-DD. */
export function todayLocal(now: Date = new Date()): string {
  const p = (n: number) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${p(now.getMonth() + 1)}-${p(now.getDate())}`;
}

const ERROR_TYPE_KEYS: Record<string, MessageKey> = {
  omission: "error.omission",
  insertion: "error.insertion",
  substitution: "error.substitution",
  order: "error.order",
};

const TREND_KEYS: Record<string, MessageKey> = {
  up: "report.trend.up",
  down: "report.trend.down",
  steady: "report.trend.steady",
  new: "report.trend.new",
};
const TREND_ICONS: Record<string, string> = { up: "↑", down: "↓", steady: "→", new: "•" };

const fmt = (n: number | null | undefined, digits = 1) =>
  n === null || n === undefined || Number.isNaN(n) ? "—" : String(Math.round(n * 10 ** digits) / 10 ** digits);

const signed = (n: number | null | undefined, digits = 1) =>
  n === null || n === undefined ? "—" : `${n > 0 ? "+" : ""}${fmt(n, digits)}`;

function errorTypeLabel(t: TFunction, type: string): string {
  return t(ERROR_TYPE_KEYS[type] ?? "error.other");
}

/** Learning reports: pick a child, daily or weekly, a date; figures, trend, charts, weak points, due reviews. */
export function ReportsTab() {
  const t = useT();
  const [kind, setKind] = useState<ReportKind>("daily");
  const [date, setDate] = useState(todayLocal());
  const [report, setReport] = useState<Report | null>(null);
  const [due, setDue] = useState<DueReview[] | null>(null);
  const [attempts, setAttempts] = useState<ListedAttempt[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { children, childId, setChildId } = useChildren(setError);
  const [loading, setLoading] = useState(false);

  useEffect(() => {
    if (!childId || !/^\d{4}-\d{2}-\d{2}$/.test(date)) return;
    let stale = false;
    setLoading(true);
    setError(null);
    (async () => {
      try {
        const r = await api.report(childId, kind, date);
        if (!stale) setReport(r ?? null);
        if (r && !stale) {
          // The attempts the report counts, one by one, over the report's own period.
          try {
            const list = await api.reportAttempts(childId, r.period_start, r.period_end);
            if (!stale) setAttempts(Array.isArray(list) ? list : null);
          } catch {
            if (!stale) setAttempts(null);
          }
        }
      } catch (e) {
        if (!stale) {
          setReport(null);
          setError(errorText(e));
        }
      } finally {
        if (!stale) setLoading(false);
      }
    })();
    (async () => {
      try {
        const list = await api.reviewsDue(childId);
        if (!stale) setDue(Array.isArray(list) ? list : []);
      } catch {
        if (!stale) setDue(null);
      }
    })();
    return () => {
      stale = true;
    };
  }, [childId, kind, date]);

  return (
    <div className="stack" data-testid="report-screen">
      <section className="card report-controls" aria-label={t("report.title")}>
        <ChildPicker id="report-child" label={t("report.child")} children={children} childId={childId} onChange={setChildId} />
        <div className="filter-group">
          <span className="field-label" id="report-kind-label">
            {t("report.kind")}
          </span>
          <div className="segmented" role="group" aria-labelledby="report-kind-label">
            {(["daily", "weekly"] as const).map((k) => (
              <button
                key={k}
                type="button"
                className="segmented-item"
                data-testid={`report-kind-${k}`}
                aria-pressed={kind === k}
                onClick={() => setKind(k)}
              >
                {t(k === "daily" ? "report.daily" : "report.weekly")}
              </button>
            ))}
          </div>
        </div>
        <div className="filter-group">
          <label className="field-label" htmlFor="report-date">
            {kind === "weekly" ? t("report.weekOf") : t("report.date")}
          </label>
          <input
            id="report-date"
            data-testid="report-date"
            className="input"
            type="date"
            value={date}
            max={todayLocal()}
            onChange={(e) => setDate(e.target.value)}
          />
        </div>
      </section>

      {children && children.length === 0 && <p className="empty">{t("report.noChildren")}</p>}
      {error && (
        <p className="banner banner-error" role="alert" data-testid="report-error">
          {t("report.error", { error })}
        </p>
      )}
      {loading && !report && <p className="muted">{t("common.loading")}</p>}
      {report && <ReportBody report={report} due={due} attempts={attempts} stale={loading} />}
      {report && kind === "weekly" && childId && <KeepWeek childId={childId} date={date} />}
    </div>
  );
}

/** The week's report saved as a picture or a PDF to keep or share; a
 * certificate when every goal of the week was met. */
export function KeepWeek({ childId, date }: { childId: string; date: string }) {
  const t = useT();
  const [busy, setBusy] = useState<KeepsakeFormat | null>(null);
  const [kept, setKept] = useState<KeepsakeWritten | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function save(format: KeepsakeFormat) {
    if (busy) return;
    setBusy(format);
    setError(null);
    setKept(null);
    try {
      setKept(await api.reportKeepsakeSave(childId, date, format));
    } catch (e) {
      setError(t("report.keepError", { error: errorText(e) }));
    } finally {
      setBusy(null);
    }
  }

  return (
    <section className="card" aria-labelledby="report-keep-title" data-testid="report-keep">
      <h3 id="report-keep-title" className="section-subtitle">
        {t("report.keepTitle")}
      </h3>
      <div className="button-row">
        {(["png", "pdf"] as const).map((f) => (
          <button
            key={f}
            type="button"
            className="btn btn-secondary"
            data-testid={`report-keep-${f}`}
            disabled={busy !== null}
            onClick={() => void save(f)}
          >
            {busy === f ? t("report.keepSaving") : t(f === "png" ? "report.keepPng" : "report.keepPdf")}
          </button>
        ))}
      </div>
      {kept && (
        <p className="banner banner-ok" role="status" data-testid="report-kept" data-certificate={String(kept.certificate)}>
          {kept.certificate ? t("report.keptCertificate", { file: kept.file }) : t("report.keptReport", { file: kept.file })}
          {kept.goals.length === 0 && <> {t("report.keptNoGoals")}</>}
        </p>
      )}
      {error && (
        <p className="banner banner-error" role="alert" data-testid="report-keep-error">
          {error}
        </p>
      )}
    </section>
  );
}

function Stat({ label, value, testId, delta }: { label: string; value: string; testId?: string; delta?: string }) {
  return (
    <div className="stat">
      <span className="stat-label">{label}</span>
      <span className="stat-value" data-testid={testId}>
        {value}
      </span>
      {delta && <span className="stat-delta">{delta}</span>}
    </div>
  );
}

/** An attempt's time: HH:MM on a daily report, MM-DD HH:MM on a weekly one (device time). */
export function attemptTime(iso: string, weekly: boolean): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const p = (n: number) => String(n).padStart(2, "0");
  const hm = `${p(d.getHours())}:${p(d.getMinutes())}`;
  return weekly ? `${p(d.getMonth() + 1)}-${p(d.getDate())} ${hm}` : hm;
}

export function ReportBody({
  report,
  due,
  attempts = null,
  stale = false,
}: {
  report: Report;
  due: DueReview[] | null;
  /** The report's attempts one by one (null: not loaded). */
  attempts?: ListedAttempt[] | null;
  stale?: boolean;
}) {
  const t = useT();
  const s = report.summary;
  const tr = report.trend;
  const dir = String(tr.direction);
  const period = report.report_type === "weekly" ? t("report.vsPrevWeek") : t("report.vsPrevDay");
  return (
    <div className={stale ? "stack is-loading" : "stack"} data-testid="report-body" data-kind={report.report_type}>
      <section className="card" aria-labelledby="report-summary-title">
        <div className="section-head">
          <h2 id="report-summary-title" className="section-title">
            {report.report_type === "weekly"
              ? t("report.weekTitle", { date: report.report_date })
              : t("report.dayTitle", { date: report.report_date })}
          </h2>
          <span className={`tag trend trend-${dir}`} data-testid="report-trend" data-direction={dir}>
            {TREND_ICONS[dir] ?? "•"} {t(TREND_KEYS[dir] ?? "report.trend.new")}
          </span>
        </div>
        <div className="stat-grid">
          <Stat
            label={t("report.attempts")}
            value={String(s.attempts)}
            testId="report-attempts"
            delta={t("report.delta", { delta: signed(tr.attempts, 0), period })}
          />
          <Stat
            label={t("report.minutes")}
            value={fmt(s.minutes)}
            testId="report-minutes"
            delta={t("report.delta", { delta: signed(tr.minutes), period })}
          />
          <Stat
            label={t("report.accuracy")}
            value={s.average_accuracy === null ? "—" : `${fmt(s.average_accuracy)}%`}
            testId="report-accuracy"
            delta={tr.average_accuracy === null ? undefined : t("report.deltaPoints", { delta: signed(tr.average_accuracy), period })}
          />
          <Stat label={t("report.firstPasses")} value={String(s.first_passes)} testId="report-first-passes" />
          <Stat label={t("report.mastered")} value={String(s.materials_mastered)} testId="report-mastered" />
          <Stat label={t("report.practised")} value={String(s.materials_practised)} />
          <Stat label={t("report.reviews")} value={String(s.reviews)} />
          <Stat label={t("report.passes")} value={String(s.passes)} />
        </div>
        {s.attempts === 0 && <p className="muted">{t("report.nothing")}</p>}
      </section>

      {attempts && (
        <section className="card" aria-labelledby="report-attempt-list-title" data-testid="report-attempt-list">
          <h2 id="report-attempt-list-title" className="section-title">
            {t("report.attemptList")}
          </h2>
          {attempts.length === 0 ? (
            <p className="muted">{t("report.noAttempts")}</p>
          ) : (
            <ol className="attempt-list">
              {attempts.map((a) => (
                <li
                  key={a.id}
                  className="attempt-row"
                  data-testid="report-attempt"
                  data-passed={String(a.passed)}
                  data-material-id={a.material_id}
                >
                  <span className="muted small">{attemptTime(a.created_at, report.report_type === "weekly")}</span>
                  <strong>{a.title}</strong>
                  <span className="muted small">{t("report.attemptNo", { n: a.attempt_no })}</span>
                  <span className="tag" data-testid="report-attempt-accuracy">{`${fmt(a.accuracy)}%`}</span>
                  {a.passed ? (
                    <span className="tag tag-ok">{t("report.passedOnce")}</span>
                  ) : (
                    <span className="tag tag-warn">{t("report.notPassedYet")}</span>
                  )}
                  <span className="tag">{t(a.purpose === "review" ? "report.purposeReview" : "report.purposeLearn")}</span>
                </li>
              ))}
            </ol>
          )}
        </section>
      )}

      <section className="card" aria-labelledby="report-charts-title">
        <h2 id="report-charts-title" className="section-title">
          {t("report.charts")}
        </h2>
        <Suspense fallback={<p className="muted">{t("common.loading")}</p>}>
          <ReportCharts report={report} />
        </Suspense>
      </section>

      <div className="two-col">
        <section className="card" aria-labelledby="report-weak-title">
          <h2 id="report-weak-title" className="section-title">
            {t("report.weakPoints")}
          </h2>
          {report.top_patterns.length === 0 ? (
            <p className="muted">{t("report.noWeakPoints")}</p>
          ) : (
            <ul className="report-list">
              {report.top_patterns.map((p, i) => (
                <li key={`${p.material_id}-${p.line}-${i}`} className="report-row" data-testid="report-pattern" data-type={p.error_type}>
                  <div className="report-row-head">
                    <span className={`tag mark-tag mark-tag-${p.error_type}`}>{errorTypeLabel(t, p.error_type)}</span>
                    <strong>{p.title}</strong>
                    <span className="muted small">{t("report.line", { line: p.line })}</span>
                    <span className="tag">{t("report.times", { n: p.occurrences })}</span>
                  </div>
                  <p className="report-example">
                    {p.expected && (
                      <span>
                        {t("report.expected")}
                        <b>{p.expected}</b>
                      </span>
                    )}
                    {p.actual && (
                      <span>
                        {t("report.actual")}
                        <b>{p.actual}</b>
                      </span>
                    )}
                  </p>
                </li>
              ))}
            </ul>
          )}
        </section>

        <section className="card" aria-labelledby="report-weakest-title">
          <h2 id="report-weakest-title" className="section-title">
            {t("report.weakest")}
          </h2>
          {report.weakest_materials.length === 0 ? (
            <p className="muted">{t("report.noWeakest")}</p>
          ) : (
            <ul className="report-list">
              {report.weakest_materials.map((m) => (
                <li key={m.material_id} className="report-row" data-testid="report-weak-material">
                  <div className="report-row-head">
                    <strong>{m.title}</strong>
                    <span className="tag">{`${fmt(m.average_accuracy)}%`}</span>
                    <span className="muted small">{t("report.attemptsN", { n: m.attempts })}</span>
                    {m.passed ? (
                      <span className="tag tag-ok">{t("report.passedOnce")}</span>
                    ) : (
                      <span className="tag tag-warn">{t("report.notPassedYet")}</span>
                    )}
                  </div>
                </li>
              ))}
            </ul>
          )}
          <h2 className="section-title report-due-title">{t("report.due")}</h2>
          {due === null ? (
            <p className="muted">—</p>
          ) : due.length === 0 ? (
            <p className="muted">{t("report.noDue")}</p>
          ) : (
            <ul className="report-list">
              {due.map((d) => (
                <li key={d.material_id} className="report-row" data-testid="report-due">
                  <div className="report-row-head">
                    <strong lang={materialLangAttr(d.lang)}>{d.title}</strong>
                    <span className={d.overdue_days > 0 ? "tag tag-warn" : "tag"}>
                      {d.overdue_days > 0 ? t("due.overdue", { days: d.overdue_days }) : t("due.today")}
                    </span>
                  </div>
                </li>
              ))}
            </ul>
          )}
        </section>
      </div>
    </div>
  );
}
