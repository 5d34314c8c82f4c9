/**
 * The practice screen's state as a pure reducer: the `PracticeView` from the
 * commands, plus what the events add while a recitation is heard or checked
 * (level, partial transcript, the running task).
 */
import type { PracticeResult, PracticeView, TaskStatus, WireError } from "../api";
import type { LevelEvent, PartialEvent, TaskEvent } from "../events";
import { verdictBefore, type RetakingState } from "./retake";

export interface TaskProgress {
  task_id: string;
  status: TaskStatus;
  /** Why it failed: a coded core error, shown in the child's language. */
  error: WireError | null;
}

export interface PracticeUi {
  view: PracticeView | null;
  /** Microphone level 0..1 while listening. */
  level: number;
  /** Live partial transcript while listening. */
  partial: string;
  /** The submission being checked, or the last one. */
  task: TaskProgress | null;
}

export type PracticeAction =
  | { type: "view"; view: PracticeView }
  | { type: "listening" }
  | { type: "submitted"; task_id: string }
  /** The child asked to say one unclear line again (before the microphone answers). */
  | { type: "retaking"; line: number }
  /** The core refused the retake (the microphone never opened): back to the verdict. */
  | { type: "retake_refused" }
  | { type: "level"; event: LevelEvent }
  | { type: "partial"; event: PartialEvent }
  | { type: "task"; event: TaskEvent };

export const initialPracticeUi: PracticeUi = { view: null, level: 0, partial: "", task: null };

const TERMINAL: TaskStatus[] = ["done", "failed"];

export function isTerminal(status: TaskStatus): boolean {
  return TERMINAL.includes(status);
}

/** The verdict to show: only once the practice has one (feedback or done, or a line of it said again). */
export function shownResult(ui: PracticeUi): PracticeResult | null {
  const v = ui.view;
  if (!v || !v.last_result) return null;
  return ["feedback", "done", "retaking"].includes(v.state.state) ? v.last_result : null;
}

/** The line being said again, if a retake is under way. */
export function retakingLine(ui: PracticeUi): number | null {
  const s = ui.view?.state;
  return s?.state === "retaking" ? s.line : null;
}

/** A retake's progress: its events carry the task the microphone opened under. */
function retakeProgress(ui: PracticeUi, view: PracticeView, s: RetakingState, e: TaskEvent): PracticeUi {
  // The first event names the task; from then on only that task's count.
  if (s.task_id && s.task_id !== e.task_id) return ui;
  if (ui.task?.task_id === e.task_id && isTerminal(ui.task.status)) return ui;
  const task: TaskProgress = { task_id: e.task_id, status: e.status, error: e.error };
  if (e.status === "done" && e.result) return { view: withResult(view, e.result), task, level: 0, partial: "" };
  if (e.status === "done" || e.status === "failed") {
    // Nothing merged: back to the verdict it came from, saying why.
    return { view: { ...view, state: verdictBefore(s) }, task, level: 0, partial: "" };
  }
  return { ...ui, view: { ...view, state: { ...s, task_id: e.task_id } }, task };
}

/** True while a submission is queued, transcribed or checked. */
export function isBusy(ui: PracticeUi): boolean {
  return ui.view?.state.state === "checking" || (ui.task !== null && !isTerminal(ui.task.status));
}

/** The microphone is open: a recitation, or a line said again. */
function hearing(view: PracticeView): boolean {
  return view.state.state === "listening" || view.state.state === "retaking";
}

function withResult(view: PracticeView, result: PracticeResult): PracticeView {
  return {
    ...view,
    attempts: Math.max(view.attempts, result.attempt_number),
    state: {
      state: result.passed ? "done" : "feedback",
      attempt_id: result.attempt_id,
      accuracy: result.accuracy,
      passed: result.passed,
    },
    last_result: result,
  };
}

export function practiceReducer(ui: PracticeUi, action: PracticeAction): PracticeUi {
  switch (action.type) {
    case "view": {
      const view = action.view;
      const task =
        view.state.state === "checking" && view.state.task_id
          ? ui.task?.task_id === view.state.task_id
            ? ui.task
            : { task_id: view.state.task_id, status: "queued" as TaskStatus, error: null }
          : view.state.state === "ready"
            ? ui.task?.status === "failed"
              ? ui.task
              : null
            : ui.task;
      return { view, level: 0, partial: view.state.state === "listening" ? ui.partial : "", task };
    }
    case "listening":
      if (!ui.view) return ui;
      return { ...ui, view: { ...ui.view, state: { state: "listening" } }, level: 0, partial: "", task: null };
    case "submitted": {
      if (!ui.view) return ui;
      // A task event may already have moved this task on: keep what it said.
      if (ui.task?.task_id === action.task_id) return ui;
      return {
        ...ui,
        view: { ...ui.view, state: { state: "checking", task_id: action.task_id } },
        level: 0,
        task: { task_id: action.task_id, status: "queued", error: null },
      };
    }
    case "retaking": {
      const s = ui.view?.state;
      if (!ui.view || !s || !(s.state === "feedback" || s.state === "done")) return ui;
      const passed = s.state === "done" || s.passed === true;
      return {
        ...ui,
        view: {
          ...ui.view,
          state: { state: "retaking", attempt_id: s.attempt_id, line: action.line, task_id: "", accuracy: s.accuracy, passed },
        },
        level: 0,
        partial: "",
        task: null,
      };
    }
    case "retake_refused": {
      const s = ui.view?.state;
      if (!ui.view || s?.state !== "retaking" || s.task_id) return ui;
      return { ...ui, view: { ...ui.view, state: verdictBefore(s) }, level: 0, partial: "" };
    }
    case "level":
      if (!ui.view || action.event.practice_id !== ui.view.id || !hearing(ui.view)) return ui;
      return { ...ui, level: Math.min(1, Math.max(0, Number(action.event.level) || 0)) };
    case "partial":
      if (!ui.view || action.event.practice_id !== ui.view.id || !hearing(ui.view)) return ui;
      return { ...ui, partial: action.event.text };
    case "task": {
      const e = action.event;
      const view = ui.view;
      if (!view || e.practice_id !== view.id) return ui;
      if (view.state.state === "retaking") return retakeProgress(ui, view, view.state, e);
      if (e.status === "listening") {
        // The microphone opened — from the record button, or from the lamp's
        // start button (after a verdict that did not pass, that is the retry).
        const s = view.state;
        if (!(s.state === "ready" || s.state === "listening" || (s.state === "feedback" && s.passed !== true))) return ui;
        return { view: { ...view, state: { state: "listening" } }, level: 0, partial: "", task: null };
      }
      const same = ui.task?.task_id === e.task_id;
      // Once a task has ended, late progress for it changes nothing.
      if (same && ui.task && isTerminal(ui.task.status)) return ui;
      // A new task only comes from a recitation in progress (the VAD ends
      // one by itself) or one just submitted; after a verdict, stray events
      // of old tasks are ignored.
      if (!same && !["ready", "listening", "checking"].includes(view.state.state)) return ui;
      if (!same && view.state.state === "checking" && view.state.task_id && view.state.task_id !== e.task_id) return ui;
      const task: TaskProgress = { task_id: e.task_id, status: e.status, error: e.error };
      if (e.status === "done") {
        if (!e.result) return { ...ui, task, view: { ...view, state: { state: "ready" } }, level: 0, partial: "" };
        return { view: withResult(view, e.result), task, level: 0, partial: "" };
      }
      if (e.status === "failed") {
        return { view: { ...view, state: { state: "ready" } }, task, level: 0, partial: "" };
      }
      return {
        ...ui,
        view: { ...view, state: { state: "checking", task_id: e.task_id } },
        task,
        level: 0,
      };
    }
  }
}
