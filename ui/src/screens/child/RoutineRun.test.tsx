import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import type { Routine } from "../../api";
import * as routinesApi from "../../routinesApi";
import { material, profile, renderWithI18n } from "../../test/helpers";
import { RoutineRun, stepsAfter } from "./RoutineRun";

vi.mock("../../api");
vi.mock("../../routinesApi");

const ming = profile({ id: "c1", kind: "child", name: "小明" });
const evening: Routine = {
  name: "evening",
  description: "",
  nodes: [
    { id: "start", type: "start", next: "tip" },
    { id: "tip", type: "agent", agent: "poetry-tutor", prompt: "一句鼓励", next: "poem" },
    { id: "poem", type: "recite", material: "静夜思", next: "end" },
    { id: "end", type: "end" },
  ],
};

describe("a routine on the child's side", () => {
  beforeEach(() => {
    vi.mocked(routinesApi.routineGet).mockResolvedValue(evening);
    vi.mocked(api.materialsList).mockResolvedValue([material({ id: "m-jys", title: "静夜思", body: "床前明月光" })]);
  });

  it("shows each step as it runs, and a recitation it waits for opens practice with the run to go on after", async () => {
    const user = userEvent.setup();
    vi.mocked(routinesApi.routineRun).mockImplementation(async (_name, _child, _input, onEvent) => {
      onEvent({ type: "node_started", run_id: "r1", node: "start", kind: "start" });
      onEvent({ type: "node_finished", run_id: "r1", node: "start" });
      onEvent({ type: "node_started", run_id: "r1", node: "tip", kind: "agent" });
      onEvent({ type: "node_output", run_id: "r1", node: "tip", text: "今晚背静夜思，加油！" });
      onEvent({ type: "node_finished", run_id: "r1", node: "tip" });
      onEvent({ type: "node_started", run_id: "r1", node: "poem", kind: "recite" });
      onEvent({ type: "waiting", run_id: "r1", node: "poem", reason: "waiting for 静夜思 to be recited" });
      return { id: "r1", routine: "evening", input: "", status: "waiting", at: "poem", steps: [] };
    });
    const onRecite = vi.fn();
    renderWithI18n(<RoutineRun profile={ming} name="evening" runId={null} onBack={() => {}} onRecite={onRecite} />);
    await user.click(await screen.findByTestId("routine-recite"));
    expect(onRecite).toHaveBeenCalledWith("m-jys", "r1");
    expect(routinesApi.routineRun).toHaveBeenCalledTimes(1);
    expect(routinesApi.routineRun).toHaveBeenCalledWith("evening", "c1", "", expect.any(Function));
    const steps = screen.getAllByTestId("routine-step");
    expect(steps.map((s) => [s.dataset.node, s.dataset.state])).toEqual([
      ["tip", "done"],
      ["poem", "waiting"],
    ]);
    expect(steps[0]).toHaveTextContent("今晚背静夜思，加油！");
    expect(screen.getByTestId("routine-recite")).toHaveTextContent("去背诵《静夜思》");
  });

  it("back from the recitation, the same run goes on and finishes", async () => {
    vi.mocked(routinesApi.routineResume).mockImplementation(async (_run, onEvent) => {
      onEvent({ type: "node_started", run_id: "r1", node: "poem", kind: "recite" });
      onEvent({ type: "node_output", run_id: "r1", node: "poem", text: "静夜思: 100% passed" });
      onEvent({ type: "node_finished", run_id: "r1", node: "poem" });
      onEvent({ type: "finished", run_id: "r1" });
      return { id: "r1", routine: "evening", input: "", status: "finished", steps: [] };
    });
    renderWithI18n(<RoutineRun profile={ming} name="evening" runId="r1" onBack={() => {}} onRecite={() => {}} />);
    expect(await screen.findByTestId("routine-done")).toHaveTextContent("完成了");
    expect(routinesApi.routineResume).toHaveBeenCalledWith("r1", expect.any(Function));
    expect(routinesApi.routineRun).not.toHaveBeenCalled();
    await waitFor(() => expect(screen.getByTestId("routine-step")).toHaveAttribute("data-state", "done"));
    expect(screen.getByTestId("routine-step")).toHaveTextContent("静夜思: 100% passed");
  });

  it("a failing step keeps its words", () => {
    const s = stepsAfter([{ node: "tip", kind: "agent", state: "running", output: "" }], {
      type: "failed",
      run_id: "r",
      node: "tip",
      message: "no chat model is configured",
    });
    expect(s).toEqual([{ node: "tip", kind: "agent", state: "failed", output: "no chat model is configured" }]);
  });
});
