import { screen, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import type { Chart, ChartKind } from "../../protocol";
import { renderWithI18n } from "../../test/helpers";
import AnswerChart, { chartRows } from "./AnswerChart";

const spec = (kind: ChartKind, over: Partial<Chart> = {}): Chart => ({
  kind,
  title: "accuracy per day (%)",
  labels: ["周一", "周二", "周三"],
  series: [{ name: "accuracy", values: [80, 92.5, 0] }],
  ...over,
});

describe("the chart of an answer", () => {
  it("draws bars: one per label with a value (none for 0), and every figure in a table", () => {
    renderWithI18n(<AnswerChart chart={spec("bar")} />);
    const chart = screen.getByTestId("answer-chart");
    expect(chart).toHaveAttribute("data-kind", "bar");
    expect(chart.querySelector("svg")).not.toBeNull();
    expect(chart.querySelectorAll(".recharts-bar-rectangle")).toHaveLength(2);
    expect(chart.querySelector(".recharts-line")).toBeNull();
    expect(chart.querySelectorAll(".recharts-cartesian-axis")).toHaveLength(2);
    // One series: no legend.
    expect(chart.querySelector(".recharts-legend-wrapper")).toBeNull();
    const rows = within(screen.getByTestId("answer-chart-table")).getAllByRole("row");
    expect(rows.map((r) => r.textContent)).toEqual(["项目accuracy", "周一80", "周二92.5", "周三0"]);
    expect(screen.getByText("accuracy per day (%)")).toBeInTheDocument();
  });

  it("draws a line with a dot per label, a line per series", () => {
    const two = spec("line", { series: [{ name: "accuracy", values: [80, 90, 70] }, { name: "minutes", values: [5, 6, 7] }] });
    renderWithI18n(<AnswerChart chart={two} />);
    const chart = screen.getByTestId("answer-chart");
    expect(chart).toHaveAttribute("data-kind", "line");
    expect(chart.querySelectorAll(".recharts-line")).toHaveLength(2);
    expect(chart.querySelectorAll(".recharts-line-dot")).toHaveLength(6);
    expect(chart.querySelectorAll(".recharts-cartesian-axis")).toHaveLength(2);
    expect(chart.querySelector(".recharts-legend-wrapper")).toHaveTextContent("accuracyminutes");
    expect(chart.querySelector(".recharts-bar-rectangle")).toBeNull();
  });

  it("draws a pie with a slice per label, labelled with its value", () => {
    const pie = spec("pie", { title: "reviews", labels: ["done this week", "due now"], series: [{ name: "reviews", values: [4, 2] }] });
    renderWithI18n(<AnswerChart chart={pie} />, "en");
    const chart = screen.getByTestId("answer-chart");
    expect(chart).toHaveAttribute("data-kind", "pie");
    expect(chart.querySelectorAll(".recharts-pie-sector")).toHaveLength(2);
    expect(chart.textContent).toContain("done this week: 4");
    expect(chart.textContent).toContain("due now: 2");
    expect(screen.getByText("Chart data: reviews")).toBeInTheDocument();
  });

  it("rows: a value per series under each label, missing values as 0", () => {
    const rows = chartRows(spec("bar", { series: [{ name: "a", values: [1] }, { name: "b", values: [2, 3, 4] }] }));
    expect(rows).toEqual([
      { label: "周一", s0: 1, s1: 2 },
      { label: "周二", s0: 0, s1: 3 },
      { label: "周三", s0: 0, s1: 4 },
    ]);
  });
});
