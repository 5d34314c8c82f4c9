/**
 * The report's charts (recharts, SVG). Loaded lazily: only the Reports tab
 * needs the charting code. A weekly report charts its per-day series; a
 * daily report has none, so it compares the day with the day before.
 */
import { Bar, BarChart, CartesianGrid, Line, LineChart, Tooltip, XAxis, YAxis } from "recharts";
import type { Report } from "../../api";
import { useLocale, useT } from "../../i18n";
import { ChartFigure } from "./ChartFigure";

const ACCENT = "#b4552c";
const CHILD = "#4f8a64";
const GRID = "#e6d8c4";
const HEIGHT = 220;

export interface ChartPoint {
  label: string;
  accuracy: number | null;
  minutes: number;
  attempts: number;
}

const WEEKDAYS_ZH = ["周日", "周一", "周二", "周三", "周四", "周五", "周六"];
const WEEKDAYS_EN = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** What the charts plot: each day of a weekly report, or the previous and this period of a daily one. */
export function chartPoints(report: Report, locale: string, labels: { previous: string; current: string }): ChartPoint[] {
  if (report.days && report.days.length > 0) {
    return report.days.map((d) => {
      const [y, m, day] = d.date.split("-").map(Number);
      const wd = new Date(Date.UTC(y, (m || 1) - 1, day || 1)).getUTCDay();
      const name = (locale === "en" ? WEEKDAYS_EN : WEEKDAYS_ZH)[wd];
      return { label: `${name} ${m}/${day}`, accuracy: d.average_accuracy, minutes: d.minutes, attempts: d.attempts };
    });
  }
  return [
    {
      label: labels.previous,
      accuracy: report.previous.average_accuracy,
      minutes: report.previous.minutes,
      attempts: report.previous.attempts,
    },
    {
      label: labels.current,
      accuracy: report.summary.average_accuracy,
      minutes: report.summary.minutes,
      attempts: report.summary.attempts,
    },
  ];
}

export default function ReportCharts({ report }: { report: Report }) {
  const t = useT();
  const { locale } = useLocale();
  const weekly = !!report.days && report.days.length > 0;
  const points = chartPoints(report, locale, {
    previous: report.report_type === "weekly" ? t("report.prevWeek") : t("report.prevDay"),
    current: report.report_type === "weekly" ? t("report.thisWeek") : t("report.thisDay"),
  });
  const margin = { top: 8, right: 16, bottom: 0, left: -16 };
  return (
    <div className="report-charts" data-testid="report-chart" data-series={weekly ? "days" : "periods"}>
      <ChartFigure caption={t("report.chartAccuracy")}>
        {(width) =>
          weekly ? (
            <LineChart width={width} height={HEIGHT} data={points} margin={margin}>
              <CartesianGrid strokeDasharray="3 3" stroke={GRID} />
              <XAxis dataKey="label" tick={{ fontSize: 12 }} />
              <YAxis domain={[0, 100]} tick={{ fontSize: 12 }} />
              <Tooltip />
              <Line
                type="monotone"
                dataKey="accuracy"
                name={t("report.accuracy")}
                stroke={ACCENT}
                strokeWidth={3}
                connectNulls
                dot={{ r: 4 }}
                isAnimationActive={false}
              />
            </LineChart>
          ) : (
            <BarChart width={width} height={HEIGHT} data={points} margin={margin}>
              <CartesianGrid strokeDasharray="3 3" stroke={GRID} />
              <XAxis dataKey="label" tick={{ fontSize: 12 }} />
              <YAxis domain={[0, 100]} tick={{ fontSize: 12 }} />
              <Tooltip />
              <Bar dataKey="accuracy" name={t("report.accuracy")} fill={ACCENT} radius={[6, 6, 0, 0]} isAnimationActive={false} />
            </BarChart>
          )
        }
      </ChartFigure>
      <ChartFigure caption={t("report.chartMinutes")}>
        {(width) => (
          <BarChart width={width} height={HEIGHT} data={points} margin={margin}>
            <CartesianGrid strokeDasharray="3 3" stroke={GRID} />
            <XAxis dataKey="label" tick={{ fontSize: 12 }} />
            <YAxis allowDecimals={false} tick={{ fontSize: 12 }} />
            <Tooltip />
            <Bar dataKey="minutes" name={t("report.minutes")} fill={CHILD} radius={[6, 6, 0, 0]} isAnimationActive={false} />
          </BarChart>
        )}
      </ChartFigure>
      <table className="visually-hidden" data-testid="report-chart-table">
        <caption>{t("report.chartTable")}</caption>
        <thead>
          <tr>
            <th scope="col">{t("report.period")}</th>
            <th scope="col">{t("report.accuracy")}</th>
            <th scope="col">{t("report.minutes")}</th>
            <th scope="col">{t("report.attempts")}</th>
          </tr>
        </thead>
        <tbody>
          {points.map((p) => (
            <tr key={p.label}>
              <th scope="row">{p.label}</th>
              <td>{p.accuracy === null ? "—" : `${p.accuracy}%`}</td>
              <td>{p.minutes}</td>
              <td>{p.attempts}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
