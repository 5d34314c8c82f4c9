import { act, screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import type { Routine, RoutineEvent, RoutineProblem } from "../../api";
import * as routinesApi from "../../routinesApi";
import { material, profile, renderWithI18n } from "../../test/helpers";
import { RoutinesTab } from "./RoutinesTab";

vi.mock("../../api");
vi.mock("../../routinesApi");

const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const ming = profile({ id: "c1", kind: "child", name: "小明" });

// jsdom has no layout: React Flow measures nodes with these.
beforeAll(() => {
  globalThis.ResizeObserver ??= class {
    observe() {}
    unobserve() {}
    disconnect() {}
  } as unknown as typeof ResizeObserver;
  (globalThis as { DOMMatrixReadOnly?: unknown }).DOMMatrixReadOnly ??= class {
    m22 = 1;
    constructor(_t?: string) {}
  };
});

/** Stands in for the core's validator on what this test builds: nodes that lead nowhere. */
function check(r: Routine): RoutineProblem[] {
  const problems: RoutineProblem[] = [];
  if (!r.name.trim()) problems.push({ code: "routine.no_name", message: "The routine needs a name." });
  for (const n of r.nodes) {
    if (n.type !== "end" && n.type !== "condition" && !n.next) {
      problems.push({ code: "routine.missing_next", node: n.id, message: `"${n.id}" does not say which node comes next.` });
    }
  }
  return problems;
}

describe("the routines tab", () => {
  let saved: Routine[];

  beforeEach(() => {
    saved = [];
    vi.mocked(api.profilesList).mockResolvedValue([mum, ming]);
    vi.mocked(api.materialsList).mockResolvedValue([material({ id: "m1", title: "静夜思", body: "床前明月光" })]);
    vi.mocked(routinesApi.routinesList).mockImplementation(async () => saved);
    vi.mocked(routinesApi.routineExamples).mockResolvedValue([
      {
        name: "weekend-reading",
        description: "Weekend English",
        nodes: [
          { id: "start", type: "start", next: "end" },
          { id: "end", type: "end" },
        ],
      },
    ]);
    vi.mocked(routinesApi.routineParts).mockResolvedValue({
      agents: [{ name: "companion", description: "the lead" }],
      tools: [
        { name: "due_reviews", description: "What is due" },
        { name: "recent_attempts", description: "Recent attempts" },
      ],
    });
    vi.mocked(routinesApi.routineCheck).mockImplementation(async (r) => check(r));
    vi.mocked(routinesApi.routineSave).mockImplementation(async (r) => {
      saved = [...saved.filter((x) => x.name !== r.name), r];
      return r;
    });
    vi.mocked(routinesApi.routineRuns).mockResolvedValue([]);
  });

  it("builds start → tool → end, explains what is wrong on the node, saves once valid and lights the nodes in a run", async () => {
    const user = userEvent.setup();
    renderWithI18n(<RoutinesTab />);
    expect(await screen.findByTestId("routines-empty")).toBeInTheDocument();
    await user.click(screen.getByTestId("routine-new"));
    await user.type(screen.getByTestId("routine-name"), "evening");

    // A tool node, picked from the study tools; the start connected to it from the panel.
    await user.click(screen.getByTestId("routine-add-tool"));
    expect(screen.getByTestId("routine-panel-id")).toHaveTextContent("tool-1");
    await user.selectOptions(screen.getByTestId("rpanel-tool"), "due_reviews");
    await user.click(screen.getByTestId("routine-panel-close"));
    await user.click(screen.getByTestId("routine-select-start"));
    await user.selectOptions(screen.getByTestId("rpanel-next"), "tool-1");

    // The tool leads nowhere yet: the validator's problem is on its node, in words.
    // (Checked once typing pauses: until then the start's problem may still show.)
    await waitFor(() => expect(screen.queryByTestId("rnode-problem-start")).toBeNull());
    expect(screen.getByTestId("rnode-problem-tool-1")).toHaveTextContent("「tool-1」还没连到下一步。");
    expect(screen.getByTestId("routine-check")).toHaveAttribute("data-state", "problems");
    await user.click(screen.getByTestId("routine-save"));
    expect(await screen.findByTestId("routine-refused")).toHaveTextContent("还不能保存：有 1 个问题");
    expect(routinesApi.routineSave).not.toHaveBeenCalled();
    expect(screen.getByTestId("routine-run")).toBeDisabled();

    await user.click(screen.getByTestId("routine-panel-close"));
    await user.click(screen.getByTestId("routine-select-tool-1"));
    await user.selectOptions(screen.getByTestId("rpanel-next"), "end");
    await waitFor(() => expect(screen.getByTestId("routine-check")).toHaveAttribute("data-state", "valid"));
    // (The canvas takes its nodes a render later.)
    await waitFor(() => expect(screen.queryByTestId("rnode-problem-tool-1")).toBeNull());
    await user.click(screen.getByTestId("routine-save"));
    expect(await screen.findByTestId("routine-saved")).toHaveTextContent("「evening」已保存。");
    const sent = vi.mocked(routinesApi.routineSave).mock.calls[0];
    expect(sent[1]).toBe(false);
    expect(sent[0].nodes.map((n) => [n.id, n.type, n.next ?? null])).toEqual([
      ["start", "start", "tool-1"],
      ["end", "end", null],
      ["tool-1", "tool", "end"],
    ]);
    expect(sent[0].nodes.every((n) => n.position)).toBe(true);
    expect(within(screen.getByTestId("routine-list")).getByText("evening")).toBeInTheDocument();

    // A run: the events light the nodes as they come; the output is readable.
    let emit: (e: RoutineEvent) => void = () => {};
    let finish: () => void = () => {};
    vi.mocked(routinesApi.routineRun).mockImplementation(
      (_name, _child, _input, onEvent) =>
        new Promise((resolve) => {
          emit = onEvent;
          finish = () =>
            resolve({ id: "r1", routine: "evening", input: "今晚", status: "finished", steps: [{ node: "tool-1", output: "静夜思 due" }] });
        }),
    );
    await user.type(screen.getByTestId("routine-run-input"), "今晚");
    await user.click(screen.getByTestId("routine-run"));
    expect(routinesApi.routineRun).toHaveBeenCalledWith("evening", "c1", "今晚", expect.any(Function));
    act(() => {
      emit({ type: "node_started", run_id: "r1", node: "start", kind: "start" });
      emit({ type: "node_finished", run_id: "r1", node: "start" });
      emit({ type: "node_started", run_id: "r1", node: "tool-1", kind: "tool" });
    });
    await waitFor(() => expect(screen.getByTestId("rnode-start")).toHaveAttribute("data-state", "done"));
    expect(screen.getByTestId("rnode-tool-1")).toHaveAttribute("data-state", "running");
    expect(screen.getByTestId("routine-run-status")).toHaveAttribute("data-status", "running");
    act(() => {
      emit({ type: "node_output", run_id: "r1", node: "tool-1", text: "静夜思 due" });
      emit({ type: "node_finished", run_id: "r1", node: "tool-1" });
      emit({ type: "node_started", run_id: "r1", node: "end", kind: "end" });
      emit({ type: "node_finished", run_id: "r1", node: "end" });
      emit({ type: "finished", run_id: "r1" });
      finish();
    });
    await waitFor(() => expect(screen.getByTestId("routine-run-status")).toHaveAttribute("data-status", "finished"));
    await waitFor(() => expect(screen.getByTestId("rnode-tool-1")).toHaveAttribute("data-state", "done"));
    expect(screen.getByTestId("rnode-output-tool-1")).toHaveTextContent("静夜思 due");
    // tool-1 is still the node in the panel.
    expect(screen.getByTestId("routine-panel-id")).toHaveTextContent("tool-1");
    expect(screen.getByTestId("rpanel-output")).toHaveTextContent("静夜思 due");
  });

  it("starts from an example without saving it, and says why a run failed", async () => {
    const user = userEvent.setup();
    renderWithI18n(<RoutinesTab />, "en");
    // A new routine untouched is simply replaced; with a change, opening an example asks first.
    await user.click(await screen.findByTestId("routine-new"));
    await user.click(screen.getByTestId("routine-new"));
    expect(screen.queryByTestId("routine-unsaved")).toBeNull();
    await user.type(screen.getByTestId("routine-name"), "draft");
    await user.click(screen.getByTestId("routine-from-example"));
    expect(screen.getByTestId("routine-unsaved")).toBeInTheDocument();
    await user.click(screen.getByTestId("routine-keep"));
    expect(screen.getByTestId("routine-name")).toHaveValue("draft");
    await user.click(screen.getByTestId("routine-from-example"));
    await user.click(screen.getByTestId("routine-discard"));
    expect(screen.getByTestId("routine-name")).toHaveValue("weekend-reading");
    expect(routinesApi.routineSave).not.toHaveBeenCalled();
    await waitFor(() => expect(screen.getByTestId("routine-check")).toHaveAttribute("data-state", "valid"));
    expect(screen.getByTestId("routine-run")).toBeDisabled();
    await user.click(screen.getByTestId("routine-save"));
    await screen.findByTestId("routine-saved");
    vi.mocked(routinesApi.routineRun).mockImplementation(async (_n, _c, _i, onEvent) => {
      onEvent({ type: "node_started", run_id: "r2", node: "start", kind: "start" });
      onEvent({ type: "failed", run_id: "r2", node: "start", message: "no chat model is configured" });
      return { id: "r2", routine: "weekend-reading", input: "", status: "failed", at: "start", steps: [] };
    });
    await user.click(screen.getByTestId("routine-run"));
    await waitFor(() => expect(screen.getByTestId("routine-run-status")).toHaveTextContent("The run failed: no chat model is configured"));
    await waitFor(() => expect(screen.getByTestId("rnode-start")).toHaveAttribute("data-state", "failed"));

    // Deleting asks first; only the second button deletes.
    vi.mocked(routinesApi.routineDelete).mockResolvedValue(null);
    await user.click(screen.getByTestId("routine-delete"));
    await user.click(screen.getByTestId("routine-delete-no"));
    expect(routinesApi.routineDelete).not.toHaveBeenCalled();
    await user.click(screen.getByTestId("routine-delete"));
    expect(screen.getByText("Delete “weekend-reading” and its runs?")).toBeInTheDocument();
    await user.click(screen.getByTestId("routine-delete-yes"));
    expect(routinesApi.routineDelete).toHaveBeenCalledWith("weekend-reading");
    await waitFor(() => expect(screen.queryByTestId("routine-editor")).toBeNull());
    expect(screen.queryByTestId("routine-item")).toBeNull();
  });
});
