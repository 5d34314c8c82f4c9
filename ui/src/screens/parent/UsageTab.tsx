import { useEffect, useState } from "react";
import * as family from "../../familyApi";
import type { UsageReport } from "../../protocol";
import { ChildPicker, useChildren } from "../../components/ChildPicker";
import { errorText } from "../../errors";
import { useLocale, useT } from "../../i18n";
import { LimitsForm } from "./LimitsForm";
import { NoticesList } from "./NoticesList";

const WINDOWS = [7, 30] as const;

/** US dollars as a parent reads them: four places under a cent, two above. */
export function dollars(v: number): string {
  return v > 0 && v < 0.01 ? `$${v.toFixed(4)}` : `$${v.toFixed(2)}`;
}

/**
 * "用量与限制 / Usage & limits": what the companion cost a child per day and
 * per answer (tokens, US dollars, model calls, minutes of chat), the daily
 * limits and quiet hours, and the notices kept for the parent. The same
 * calls as `deskmate usage|limits|notices`.
 */
export function UsageTab() {
  const t = useT();
  const { locale } = useLocale();
  const [error, setError] = useState<string | null>(null);
  const { children, childId, setChildId, name } = useChildren(setError);
  const [days, setDays] = useState<number>(7);
  const [report, setReport] = useState<UsageReport | null>(null);

  useEffect(() => {
    if (!childId) return;
    let stale = false;
    setReport(null);
    family
      .usage(childId, days)
      .then((r) => !stale && setReport(r))
      .catch((e) => !stale && setError(t("usage.error", { error: errorText(e) })));
    return () => {
      stale = true;
    };
  }, [childId, days, t]);

  const daysShown = report ? [...report.days].reverse() : [];

  return (
    <div className="stack" data-testid="usage-screen">
      <div className="form-row">
        <ChildPicker id="usage-child" label={t("usage.child")} children={children} childId={childId} onChange={setChildId} />
        <div className="filter-group">
          <label className="field-label" htmlFor="usage-days">
            {t("usage.days")}
          </label>
          <select id="usage-days" data-testid="usage-days" className="input" value={days} onChange={(e) => setDays(Number(e.target.value))}>
            {WINDOWS.map((d) => (
              <option key={d} value={d}>
                {t("usage.lastDays", { n: d })}
              </option>
            ))}
          </select>
        </div>
      </div>
      {children && children.length === 0 && <p className="empty">{t("goals.noChildren")}</p>}
      {error && (
        <p className="banner banner-error" role="alert" data-testid="usage-error">
          {error}
        </p>
      )}
      {childId && (
        <section className="card" aria-labelledby="usage-days-title">
          <h2 id="usage-days-title" className="section-title">
            {t("usage.perDay", { name })}
          </h2>
          {!report && !error && <p className="muted">{t("common.loading")}</p>}
          {report && (
            <div className="table-wrap">
              <table className="data-table" data-testid="usage-days-table">
                <thead>
                  <tr>
                    <th scope="col">{t("usage.date")}</th>
                    <th scope="col">{t("usage.runs")}</th>
                    <th scope="col">{t("usage.calls")}</th>
                    <th scope="col">{t("usage.tokens")}</th>
                    <th scope="col">{t("usage.cost")}</th>
                    <th scope="col">{t("usage.chatMinutes")}</th>
                  </tr>
                </thead>
                <tbody>
                  {daysShown.map((d) => (
                    <tr key={d.date} data-testid="usage-day" data-date={d.date}>
                      <th scope="row">{d.date}</th>
                      <td>{d.runs}</td>
                      <td>{d.model_calls}</td>
                      <td>
                        {d.input_tokens} / {d.output_tokens}
                      </td>
                      <td>
                        {dollars(d.cost_usd)}
                        {d.unpriced_calls > 0 && <span className="small muted"> {t("usage.unpriced", { n: d.unpriced_calls })}</span>}
                      </td>
                      <td>{Math.ceil(d.chat_seconds / 60)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <h3 className="section-title">{t("usage.perRun")}</h3>
          {report && report.runs.length === 0 && (
            <p className="empty" data-testid="usage-no-runs">
              {t("usage.noRuns")}
            </p>
          )}
          {report && report.runs.length > 0 && (
            <div className="table-wrap">
              <table className="data-table" data-testid="usage-runs-table">
                <thead>
                  <tr>
                    <th scope="col">{t("usage.started")}</th>
                    <th scope="col">{t("usage.model")}</th>
                    <th scope="col">{t("usage.calls")}</th>
                    <th scope="col">{t("usage.tokens")}</th>
                    <th scope="col">{t("usage.cost")}</th>
                  </tr>
                </thead>
                <tbody>
                  {report.runs.map((r) => (
                    <tr key={r.run_id} data-testid="usage-run">
                      <th scope="row">{new Date(r.started_at).toLocaleString(locale)}</th>
                      <td>{r.model}</td>
                      <td>{r.model_calls}</td>
                      <td>
                        {r.input_tokens} / {r.output_tokens}
                      </td>
                      <td>{dollars(r.cost_usd)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
      {childId && <LimitsForm childId={childId} name={name} />}
      {childId && <NoticesList childId={childId} name={name} />}
    </div>
  );
}
