import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import { profile, renderWithI18n } from "../../test/helpers";
import { dailyReport, weeklyReport, REVIEW_CARD } from "../../test/samples";
import { chartPoints } from "./ReportCharts";
import { ReportBody, ReportsTab, todayLocal } from "./ReportsTab";

vi.mock("../../api");

const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const ming = profile({ id: "c1", kind: "child", name: "小明", grade: 2 });
const lan = profile({ id: "c2", kind: "child", name: "小兰", grade: 4 });

describe("reports", () => {
  beforeEach(() => {
    vi.mocked(api.profilesList).mockResolvedValue([mum, ming, lan]);
    vi.mocked(api.report).mockResolvedValue(dailyReport);
    vi.mocked(api.reviewsDue).mockResolvedValue([
      { material_id: "m3", title: "春晓", lang: "zh", next_review_at: "2026-03-05T00:00:00Z", overdue_days: 2, ...REVIEW_CARD },
    ]);
  });

  it("asks for today's daily report of the first child, then follows the child, kind and date chosen", async () => {
    const user = userEvent.setup();
    renderWithI18n(<ReportsTab />);
    await waitFor(() => expect(api.report).toHaveBeenCalledWith("c1", "daily", todayLocal()));
    expect(within(screen.getByTestId("report-child")).getAllByRole("option").map((o) => o.textContent)).toEqual([
      "小明",
      "小兰",
    ]);
    expect(await screen.findByTestId("report-attempts")).toHaveTextContent("4");

    vi.mocked(api.report).mockResolvedValue(weeklyReport);
    await user.click(screen.getByTestId("report-kind-weekly"));
    await waitFor(() => expect(api.report).toHaveBeenLastCalledWith("c1", "weekly", todayLocal()));
    await waitFor(() => expect(screen.getByTestId("report-attempts")).toHaveTextContent("12"));

    await user.selectOptions(screen.getByTestId("report-child"), "c2");
    await waitFor(() => expect(api.report).toHaveBeenLastCalledWith("c2", "weekly", todayLocal()));
    expect(api.reviewsDue).toHaveBeenLastCalledWith("c2");

    const date = screen.getByTestId("report-date");
    await user.clear(date);
    await user.type(date, "2026-03-04");
    await waitFor(() => expect(api.report).toHaveBeenLastCalledWith("c2", "weekly", "2026-03-04"));
  });

  it("lists the report's attempts one by one, over the report's own period", async () => {
    vi.mocked(api.reportAttempts).mockResolvedValue([
      { id: "a1", material_id: "m1", title: "静夜思", mode: "voice", accuracy: 72.5, passed: false, purpose: "learn", attempt_no: 1, created_at: "2026-03-05T01:02:00Z" },
      { id: "a2", material_id: "m1", title: "静夜思", mode: "voice", accuracy: 100, passed: true, purpose: "learn", attempt_no: 2, created_at: "2026-03-05T01:05:00Z" },
    ]);
    renderWithI18n(<ReportsTab />);
    const rows = await screen.findAllByTestId("report-attempt");
    expect(api.reportAttempts).toHaveBeenCalledWith("c1", dailyReport.period_start, dailyReport.period_end);
    expect(rows.map((r) => [r.dataset.passed, within(r).getByTestId("report-attempt-accuracy").textContent])).toEqual([
      ["false", "72.5%"],
      ["true", "100%"],
    ]);
    expect(rows[0]).toHaveTextContent("静夜思");
    expect(rows[0]).toHaveTextContent("第 1 次");
    expect(rows[1]).toHaveTextContent("第 2 次");
    expect(rows[1]).toHaveTextContent("已过关");
  });

  it("says so when the period has no attempts", async () => {
    vi.mocked(api.reportAttempts).mockResolvedValue([]);
    renderWithI18n(<ReportsTab />);
    expect(await screen.findByTestId("report-attempt-list")).toHaveTextContent("这段时间没有练习。");
    expect(screen.queryByTestId("report-attempt")).not.toBeInTheDocument();
  });

  it("shows the api's error", async () => {
    vi.mocked(api.report).mockRejectedValue("profile c1 has an unknown time zone");
    renderWithI18n(<ReportsTab />);
    expect(await screen.findByTestId("report-error")).toHaveTextContent("profile c1 has an unknown time zone");
    expect(screen.queryByTestId("report-attempts")).not.toBeInTheDocument();
  });

  it("renders a weekly report: figures, trend, weak points, weakest texts, due reviews and a per-day chart", async () => {
    renderWithI18n(
      <ReportBody
        report={weeklyReport}
        due={[{ material_id: "m3", title: "春晓", lang: "zh", next_review_at: "2026-03-05T00:00:00Z", overdue_days: 2, ...REVIEW_CARD }]}
      />,
    );
    expect(screen.getByTestId("report-body")).toHaveAttribute("data-kind", "weekly");
    expect(screen.getByTestId("report-attempts")).toHaveTextContent(/^12$/);
    expect(screen.getByTestId("report-minutes")).toHaveTextContent("34.5");
    expect(screen.getByTestId("report-accuracy")).toHaveTextContent("88.3%");
    expect(screen.getByTestId("report-first-passes")).toHaveTextContent("3");
    expect(screen.getByTestId("report-mastered")).toHaveTextContent("1");
    expect(screen.getByTestId("report-trend")).toHaveAttribute("data-direction", "up");
    expect(screen.getByText("比上一周 +4")).toBeInTheDocument();
    expect(screen.getByText("比上一周 +8.3 个百分点")).toBeInTheDocument();

    const patterns = screen.getAllByTestId("report-pattern");
    expect(patterns.map((p) => p.dataset.type)).toEqual(["substitution", "omission"]);
    expect(patterns[0]).toHaveTextContent("静夜思");
    expect(patterns[0]).toHaveTextContent("第 3 句");
    expect(patterns[0]).toHaveTextContent("3 次");
    expect(patterns[0]).toHaveTextContent("头");
    expect(patterns[0]).toHaveTextContent("偷");
    expect(screen.getByTestId("report-weak-material")).toHaveTextContent("春晓");
    expect(screen.getByTestId("report-weak-material")).toHaveTextContent("72.5%");
    expect(screen.getByTestId("report-due")).toHaveTextContent("晚了 2 天");

    const chart = await screen.findByTestId("report-chart");
    expect(chart).toHaveAttribute("data-series", "days");
    const rows = within(screen.getByTestId("report-chart-table")).getAllByRole("row");
    expect(rows).toHaveLength(8); // header + 7 days
    expect(rows[1]).toHaveTextContent("周一 3/2");
    expect(rows[4]).toHaveTextContent("92%");
    expect(chart.querySelectorAll("svg").length).toBeGreaterThanOrEqual(2);
  });

  it("a daily report has no day series: the chart compares it with the day before", async () => {
    renderWithI18n(<ReportBody report={dailyReport} due={[]} />, "en");
    expect(screen.getByTestId("report-trend")).toHaveTextContent("Nothing to compare");
    expect(screen.getByText("No reviews due today.")).toBeInTheDocument();
    const chart = await screen.findByTestId("report-chart");
    expect(chart).toHaveAttribute("data-series", "periods");
    const rows = within(screen.getByTestId("report-chart-table")).getAllByRole("row");
    expect(rows.slice(1).map((r) => r.textContent)).toEqual(["Day before—00", "This day92%10.54"]);
  });

  it("saves a weekly report to keep, as a picture or a PDF, and says when it is a certificate", async () => {
    vi.mocked(api.report).mockResolvedValue(weeklyReport);
    const written = {
      profile_id: "c1",
      name: "小明",
      week_of: "2026-03-02",
      file: "/home/li/Downloads/小明-2026-03-04.png",
      format: "png" as const,
      bytes: 12345,
      certificate: true,
      goals: [{ kind: "reviews_per_week", target: 3, done: 3, met: true }],
    };
    vi.mocked(api.reportKeepsakeSave)
      .mockResolvedValueOnce(written)
      .mockResolvedValueOnce({ ...written, format: "pdf", file: "/home/li/Downloads/小明-2026-03-04.pdf", certificate: false, goals: [] })
      .mockRejectedValueOnce({ code: "config", message: "no Chinese font is installed", params: {} });
    const user = userEvent.setup();
    renderWithI18n(<ReportsTab />);
    // Daily reports have nothing to keep.
    await waitFor(() => expect(api.report).toHaveBeenCalled());
    expect(screen.queryByTestId("report-keep")).toBeNull();
    await user.click(screen.getByTestId("report-kind-weekly"));
    await user.click(await screen.findByTestId("report-keep-png"));
    expect(api.reportKeepsakeSave).toHaveBeenCalledWith("c1", todayLocal(), "png");
    const kept = await screen.findByTestId("report-kept");
    expect(kept).toHaveAttribute("data-certificate", "true");
    expect(kept).toHaveTextContent("奖状已保存到 /home/li/Downloads/小明-2026-03-04.png");
    await user.click(screen.getByTestId("report-keep-pdf"));
    await waitFor(() => expect(screen.getByTestId("report-kept")).toHaveAttribute("data-certificate", "false"));
    expect(screen.getByTestId("report-kept")).toHaveTextContent("还没有给孩子设目标");
    await user.click(screen.getByTestId("report-keep-pdf"));
    expect(await screen.findByTestId("report-keep-error")).toHaveTextContent("no Chinese font is installed");
  });

  it("chart points: weekday labels in either language", () => {
    const zh = chartPoints(weeklyReport, "zh-CN", { previous: "a", current: "b" });
    expect(zh.map((p) => p.label)).toEqual(["周一 3/2", "周二 3/3", "周三 3/4", "周四 3/5", "周五 3/6", "周六 3/7", "周日 3/8"]);
    expect(zh[1].accuracy).toBeNull();
    expect(chartPoints(weeklyReport, "en", { previous: "a", current: "b" })[0].label).toBe("Mon 3/2");
  });
});
