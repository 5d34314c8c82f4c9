/**
 * Typed layer over the routine commands (issue 21; src-tauri/src/commands/routines.rs):
 * the parent's routines, the built-in examples, what nodes can name, a graph
 * checked by the core's validator without saving, and runs whose node events
 * stream in through a Tauri `Channel`. Kept beside ./api.ts (whose `call` it
 * uses: the same rejection as plain words) — the calls `deskmate workflows` makes.
 */
import { Channel } from "@tauri-apps/api/core";
import { call } from "./api";
import type { Routine, RoutineEvent, RoutineParts, RoutineProblem, RoutineRunView } from "./protocol";

export function routinesList(): Promise<Routine[]> {
  return call<Routine[]>("routines_list");
}

export function routineGet(name: string): Promise<Routine> {
  return call<Routine>("routine_get", { name });
}

/** The built-in routines to start from (not saved until the parent saves one). */
export function routineExamples(): Promise<Routine[]> {
  return call<Routine[]>("routine_examples");
}

/** The team's agents and the study tools a node can name. */
export function routineParts(): Promise<RoutineParts> {
  return call<RoutineParts>("routine_parts");
}

/** Every problem the core's validator finds (none: it can be saved); saves nothing. */
export function routineCheck(routine: Routine): Promise<RoutineProblem[]> {
  return call<RoutineProblem[]>("routine_check", { routine });
}

/** Saves a new routine, or (`update`) replaces the saved one of its name. */
export function routineSave(routine: Routine, update: boolean): Promise<Routine> {
  return call<Routine>("routine_save", { routine, update });
}

export function routineDelete(name: string): Promise<null> {
  return call<null>("routine_delete", { name });
}

/** The runs of `routine` (all when null), newest first. */
export function routineRuns(routine: string | null): Promise<RoutineRunView[]> {
  return call<RoutineRunView[]>("routine_runs", { routine });
}

/** Runs the saved routine `name` for a child on `input`; each node's events reach `onEvent` as they happen. */
export function routineRun(
  name: string,
  profileId: string,
  input: string,
  onEvent: (event: RoutineEvent) => void,
): Promise<RoutineRunView> {
  return call<RoutineRunView>("routine_run", () => {
    const channel = new Channel<RoutineEvent>();
    channel.onmessage = onEvent;
    return { name, profileId, input, onEvent: channel };
  });
}

/** Goes on with a run that waits (for a recitation) or was cut short. */
export function routineResume(runId: string, onEvent: (event: RoutineEvent) => void): Promise<RoutineRunView> {
  return call<RoutineRunView>("routine_resume", () => {
    const channel = new Channel<RoutineEvent>();
    channel.onmessage = onEvent;
    return { runId, onEvent: channel };
  });
}
