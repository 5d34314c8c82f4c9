/**
 * The chart of an answer to a parent's question (`ProgressAnswer.chart`, a
 * small spec the core or the model wrote): bars, a line or a pie, drawn with
 * recharts as SVG at the figure's width, with the same figures in a table
 * for screen readers. Loaded lazily by the Ask tab.
 */
import { Bar, BarChart, CartesianGrid, Cell, Legend, Line, LineChart, Pie, PieChart, Tooltip, XAxis, YAxis } from "recharts";
import type { Chart } from "../../protocol";
import { useT } from "../../i18n";
import { ChartFigure } from "./ChartFigure";

/** Colours of series (and of a pie's slices), in order. */
const COLOURS = ["#b4552c", "#4f8a64", "#3f6fa8", "#c79a2b", "#8a5aa8", "#5d8f99", "#a8475a", "#6b7a3a"];
const GRID = "#e6d8c4";
const HEIGHT = 240;

/** One row per label: `{label, s0: value of series 0, s1: …}` (recharts' shape). */
export function chartRows(chart: Chart): Record<string, string | number>[] {
  return chart.labels.map((label, i) => {
    const row: Record<string, string | number> = { label };
    chart.series.forEach((s, j) => {
      row[`s${j}`] = s.values[i] ?? 0;
    });
    return row;
  });
}

export default function AnswerChart({ chart }: { chart: Chart }) {
  const t = useT();
  const rows = chartRows(chart);
  const margin = { top: 8, right: 16, bottom: 0, left: -8 };
  // What a line and a bar chart share: grid, axes, tooltip, and a legend
  // when there is more than one series (an array: recharts reads its
  // children flattened).
  const axes = [
    <CartesianGrid key="grid" strokeDasharray="3 3" stroke={GRID} />,
    <XAxis key="x" dataKey="label" tick={{ fontSize: 12 }} />,
    <YAxis key="y" tick={{ fontSize: 12 }} />,
    <Tooltip key="tip" />,
    ...(chart.series.length > 1 ? [<Legend key="legend" />] : []),
  ];
  return (
    <div className="answer-chart" data-testid="answer-chart" data-kind={chart.kind}>
      <ChartFigure caption={chart.title}>
        {(width) => {
          if (chart.kind === "pie") {
            const first = chart.series[0];
            const slices = chart.labels.map((label, i) => ({ label, value: first?.values[i] ?? 0 }));
            return (
              <PieChart width={width} height={HEIGHT}>
                <Pie
                  data={slices}
                  dataKey="value"
                  nameKey="label"
                  outerRadius={Math.min(HEIGHT / 2 - 24, width / 4)}
                  label={({ name, value }) => `${name}: ${value}`}
                  isAnimationActive={false}
                >
                  {slices.map((s, i) => (
                    <Cell key={s.label} fill={COLOURS[i % COLOURS.length]} />
                  ))}
                </Pie>
                <Tooltip />
                <Legend />
              </PieChart>
            );
          }
          if (chart.kind === "line") {
            return (
              <LineChart width={width} height={HEIGHT} data={rows} margin={margin}>
                {axes}
                {chart.series.map((s, j) => (
                  <Line
                    key={s.name}
                    type="monotone"
                    dataKey={`s${j}`}
                    name={s.name}
                    stroke={COLOURS[j % COLOURS.length]}
                    strokeWidth={3}
                    dot={{ r: 4 }}
                    isAnimationActive={false}
                  />
                ))}
              </LineChart>
            );
          }
          return (
            <BarChart width={width} height={HEIGHT} data={rows} margin={margin}>
              {axes}
              {chart.series.map((s, j) => (
                <Bar
                  key={s.name}
                  dataKey={`s${j}`}
                  name={s.name}
                  fill={COLOURS[j % COLOURS.length]}
                  radius={[6, 6, 0, 0]}
                  maxBarSize={72}
                  isAnimationActive={false}
                />
              ))}
            </BarChart>
          );
        }}
      </ChartFigure>
      <table className="visually-hidden" data-testid="answer-chart-table">
        <caption>{t("ask.chartTable", { title: chart.title })}</caption>
        <thead>
          <tr>
            <th scope="col">{t("ask.label")}</th>
            {chart.series.map((s) => (
              <th key={s.name} scope="col">
                {s.name}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {chart.labels.map((label, i) => (
            <tr key={`${label}-${i}`}>
              <th scope="row">{label}</th>
              {chart.series.map((s) => (
                <td key={s.name}>{s.values[i] ?? ""}</td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
