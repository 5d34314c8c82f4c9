import { beforeEach, describe, expect, it, vi } from "vitest";
import type { Routine } from "./protocol";

const invoke = vi.fn();
class FakeChannel<T> {
  onmessage: (m: T) => void = () => {};
}
vi.mock("@tauri-apps/api/core", () => ({ invoke: (...a: unknown[]) => invoke(...a), Channel: FakeChannel }));

const routinesApi = await import("./routinesApi");

const routine: Routine = { name: "evening", description: "", nodes: [{ id: "start", type: "start", next: "end" }, { id: "end", type: "end" }] };

describe("routinesApi: command names and argument keys (as src-tauri/src/commands/routines.rs expects)", () => {
  beforeEach(() => {
    invoke.mockReset();
    invoke.mockImplementation(async () => null);
  });

  it("the routines, their check, save and delete", async () => {
    await routinesApi.routinesList();
    await routinesApi.routineGet("evening");
    await routinesApi.routineExamples();
    await routinesApi.routineParts();
    await routinesApi.routineCheck(routine);
    await routinesApi.routineSave(routine, true);
    await routinesApi.routineDelete("evening");
    await routinesApi.routineRuns(null);
    expect(invoke.mock.calls).toEqual([
      ["routines_list", undefined],
      ["routine_get", { name: "evening" }],
      ["routine_examples", undefined],
      ["routine_parts", undefined],
      ["routine_check", { routine }],
      ["routine_save", { routine, update: true }],
      ["routine_delete", { name: "evening" }],
      ["routine_runs", { routine: null }],
    ]);
  });

  it("a run and a resume, with a Channel carrying the node events to the callback", async () => {
    const onEvent = vi.fn();
    await routinesApi.routineRun("evening", "c1", "今晚", onEvent);
    const [cmd, args] = invoke.mock.calls[0];
    expect(cmd).toBe("routine_run");
    expect({ ...args, onEvent: undefined }).toEqual({ name: "evening", profileId: "c1", input: "今晚", onEvent: undefined });
    expect(args.onEvent).toBeInstanceOf(FakeChannel);
    args.onEvent.onmessage({ type: "finished", run_id: "r1" });
    expect(onEvent).toHaveBeenCalledWith({ type: "finished", run_id: "r1" });

    await routinesApi.routineResume("r1", onEvent);
    const [cmd2, args2] = invoke.mock.calls[1];
    expect([cmd2, args2.runId]).toEqual(["routine_resume", "r1"]);
    expect(args2.onEvent).toBeInstanceOf(FakeChannel);
  });
});
