import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import type { Trace, TraceSpan } from "../../api";
import { profile, renderWithI18n } from "../../test/helpers";
import { ActivityTab, decisionText, timelineRows } from "./ActivityTab";

vi.mock("../../api");

const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const ming = profile({ id: "c1", kind: "child", name: "小明" });
const lan = profile({ id: "c2", kind: "child", name: "小兰" });

function span(over: Partial<TraceSpan> & Pick<TraceSpan, "span_id" | "name">): TraceSpan {
  return {
    trace_id: "t1",
    parent_span_id: null,
    started_at: 1_700_000_000_000_000,
    duration_us: 1000,
    outcome: "ok",
    error_code: null,
    attributes: {},
    ...over,
  };
}

// Root first, then the stages by start; the model call sits inside the homework step.
const SPANS: TraceSpan[] = [
  span({ span_id: "a", name: "request", duration_us: 52_300 }),
  span({ span_id: "b", parent_span_id: "a", name: "route", duration_us: 400, attributes: { intent: "homework" } }),
  span({ span_id: "c", parent_span_id: "a", name: "scene.homework", duration_us: 50_100, outcome: "error", error_code: "homework.model_failed" }),
  span({ span_id: "d", parent_span_id: "c", name: "model.call", duration_us: 49_800, outcome: "error", error_code: "llm.http" }),
];

function trace(over: Partial<Trace> & Pick<Trace, "trace_id" | "input">): Trace {
  return {
    profile_id: "c1",
    scene_before: "chat",
    intent: "homework",
    confidence: "high",
    decision: { decision: "switch", to: "homework", material_id: null },
    reason: "high confidence",
    scene_after: "homework",
    said: "我来看看你的作业",
    timings: {},
    at: "2026-03-02T08:30:00Z",
    spans: SPANS,
    ...over,
  };
}

describe("what happened", () => {
  beforeEach(() => {
    vi.mocked(api.profilesList).mockResolvedValue([mum, ming, lan]);
  });

  it("says so when the child has made no request yet", async () => {
    vi.mocked(api.tracesRecent).mockResolvedValue([]);
    renderWithI18n(<ActivityTab />);
    expect(await screen.findByTestId("activity-empty")).toHaveTextContent("小明");
    expect(api.tracesRecent).toHaveBeenCalledWith("c1");
  });

  it("lists the requests, follows the child chosen, and opens a timeline with its error spans marked", async () => {
    const user = userEvent.setup();
    vi.mocked(api.tracesRecent).mockResolvedValue([
      trace({ trace_id: "t1", input: "帮我看看作业" }),
      trace({ trace_id: "t0", input: "我要背静夜思", intent: "recite", decision: { decision: "continue" }, spans: [] }),
    ]);
    vi.mocked(api.traceShow).mockImplementation(async (id) => trace({ trace_id: id, input: "帮我看看作业" }));
    renderWithI18n(<ActivityTab />, "en");

    const items = await screen.findAllByTestId("trace-item");
    expect(items.map((i) => within(i).getByTestId("trace-input").textContent)).toEqual(["帮我看看作业", "我要背静夜思"]);
    expect(within(items[0]).getByTestId("trace-summary")).toHaveTextContent("chat → homework");
    expect(within(items[0]).getByTestId("trace-summary")).toHaveTextContent("switch → homework");
    expect(within(items[1]).getByTestId("trace-summary")).toHaveTextContent("continue");
    expect(screen.queryByTestId("trace-timeline")).toBeNull();

    await user.click(within(items[0]).getByTestId("trace-open"));
    expect(api.traceShow).toHaveBeenCalledWith("t1");
    const rows = within(await screen.findByTestId("trace-timeline")).getAllByTestId("trace-span");
    expect(rows.map((r) => r.querySelector("strong")?.textContent)).toEqual(["request", "route", "scene.homework", "model.call"]);
    expect(rows.map((r) => r.style.paddingInlineStart)).toEqual(["0em", "1.5em", "1.5em", "3em"]);
    expect(rows[0]).toHaveTextContent("52.3 ms");
    expect(rows[1]).toHaveTextContent("intent=homework");
    expect(rows.map((r) => r.dataset.outcome)).toEqual(["ok", "ok", "error", "error"]);
    expect(within(rows[2]).getByTestId("span-error")).toHaveTextContent("error homework.model_failed");
    expect(within(rows[0]).queryByTestId("span-error")).toBeNull();

    await user.click(within(items[0]).getByTestId("trace-open"));
    expect(screen.queryByTestId("trace-timeline")).toBeNull();

    vi.mocked(api.tracesRecent).mockResolvedValue([]);
    await user.selectOptions(screen.getByTestId("activity-child"), "c2");
    await waitFor(() => expect(api.tracesRecent).toHaveBeenLastCalledWith("c2"));
    expect(await screen.findByTestId("activity-empty")).toHaveTextContent("小兰");
  });

  it("lists a request refused before a decision with why, in the parent's words", async () => {
    vi.mocked(api.tracesRecent).mockResolvedValue([
      trace({
        trace_id: "t9",
        input: "",
        intent: "",
        confidence: "",
        decision: { decision: "reject", reason: "speech.nothing_heard" },
        reason: "refused before a decision: speech.nothing_heard",
        scene_after: "chat",
        said: "没听清楚，靠近麦克风再说一次吧。",
        spans: [
          span({ span_id: "a", name: "request", outcome: "error", error_code: "speech.nothing_heard" }),
          span({ span_id: "b", parent_span_id: "a", name: "speech", outcome: "error", error_code: "speech.nothing_heard" }),
        ],
      }),
    ]);
    renderWithI18n(<ActivityTab />);
    const [item] = await screen.findAllByTestId("trace-item");
    const summary = within(item).getByTestId("trace-summary");
    expect(summary.dataset.refused).toBe("speech.nothing_heard");
    expect(summary).toHaveTextContent("没有做成");
    expect(summary).not.toHaveTextContent("speech.nothing_heard");
    expect(within(item).queryByTestId("trace-input")).toBeNull();
    expect(item).toHaveTextContent("没听清楚");
  });

  it("shows why the requests could not be read", async () => {
    vi.mocked(api.tracesRecent).mockRejectedValue("the data file is locked");
    renderWithI18n(<ActivityTab />, "en");
    expect(await screen.findByTestId("activity-error")).toHaveTextContent("the data file is locked");
  });

  it("draws an orphan span at the top and words every decision", () => {
    const rows = timelineRows([span({ span_id: "x", parent_span_id: "gone", name: "speech" })]);
    expect(rows).toEqual([{ span: expect.objectContaining({ name: "speech" }), depth: 0 }]);
    expect(decisionText({ decision: "reject", reason: "empty" })).toBe("reject: empty");
    expect(decisionText({ decision: "exit" })).toBe("exit");
  });
});
