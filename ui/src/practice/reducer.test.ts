import { describe, expect, it } from "vitest";
import type { TaskEvent } from "../events";
import { practiceResult, practiceView } from "../test/samples";
import { recErr } from "../test/samples";
import { initialPracticeUi, isBusy, practiceReducer, retakingLine, shownResult, type PracticeAction, type PracticeUi } from "./reducer";
import { linesToSayAgain, zhLineNumber } from "./retake";

const task = (over: Partial<TaskEvent>): PracticeAction => ({
  type: "task",
  event: { practice_id: "p1", task_id: "t1", status: "queued", error: null, result: null, ...over },
});

function run(actions: PracticeAction[], from: PracticeUi = { ...initialPracticeUi, view: practiceView() }): PracticeUi {
  return actions.reduce(practiceReducer, from);
}

describe("practice reducer", () => {
  it("listening → level and partial transcript → submitted → progress → verdict", () => {
    let ui = run([{ type: "listening" }]);
    expect(ui.view?.state.state).toBe("listening");
    ui = run(
      [
        { type: "level", event: { practice_id: "p1", level: 0.4 } },
        { type: "level", event: { practice_id: "p1", level: 7 } },
        { type: "partial", event: { practice_id: "p1", text: "床前明月" } },
      ],
      ui,
    );
    expect(ui.level).toBe(1); // clamped
    expect(ui.partial).toBe("床前明月");

    ui = run([{ type: "submitted", task_id: "t1" }], ui);
    expect(ui.view?.state).toEqual({ state: "checking", task_id: "t1" });
    expect(ui.task).toEqual({ task_id: "t1", status: "queued", error: null });
    expect(ui.level).toBe(0);
    expect(isBusy(ui)).toBe(true);
    expect(shownResult(ui)).toBeNull();

    ui = run([task({ status: "transcribing" }), task({ status: "checking" })], ui);
    expect(ui.task?.status).toBe("checking");

    const result = practiceResult();
    ui = run([task({ status: "done", result })], ui);
    expect(ui.view?.state).toEqual({ state: "feedback", attempt_id: "a1", accuracy: 70, passed: false });
    expect(ui.view?.attempts).toBe(1);
    expect(ui.view?.last_result).toBe(result);
    expect(shownResult(ui)).toBe(result);
    expect(isBusy(ui)).toBe(false);
    expect(ui.partial).toBe("");
  });

  it("a passing verdict ends the practice", () => {
    const result = practiceResult({ passed: true, accuracy: 95, attempt_number: 3 });
    const ui = run([{ type: "submitted", task_id: "t1" }, task({ status: "done", result })]);
    expect(ui.view?.state.state).toBe("done");
    expect(ui.view?.attempts).toBe(3);
  });

  it("a task the VAD ended by itself arrives while listening and is followed", () => {
    const ui = run([{ type: "listening" }, task({ task_id: "vad-1", status: "transcribing" })]);
    expect(ui.view?.state).toEqual({ state: "checking", task_id: "vad-1" });
    expect(ui.task?.status).toBe("transcribing");
    // The submit answer arriving late does not reset the progress.
    expect(run([{ type: "submitted", task_id: "vad-1" }], ui).task?.status).toBe("transcribing");
  });

  it("a recording opened elsewhere (the lamp's start button) shows as listening, also as the retry after feedback", () => {
    let ui = run([task({ task_id: "lamp-1", status: "listening" })]);
    expect(ui.view?.state).toEqual({ state: "listening" });
    expect(ui.task).toBeNull();
    expect(isBusy(ui)).toBe(false);
    // Then queued under the same task id, as the core sends it.
    ui = run([task({ task_id: "lamp-1", status: "queued" })], ui);
    expect(ui.view?.state).toEqual({ state: "checking", task_id: "lamp-1" });
    expect(ui.task?.status).toBe("queued");

    const failed = practiceResult();
    const afterFeedback = run([{ type: "submitted", task_id: "t1" }, task({ status: "done", result: failed }), task({ task_id: "lamp-2", status: "listening" })]);
    expect(afterFeedback.view?.state).toEqual({ state: "listening" });
    expect(shownResult(afterFeedback)).toBeNull();

    // After a pass, or while checking, a stray "listening" changes nothing.
    const passed = run([{ type: "submitted", task_id: "t1" }, task({ status: "done", result: practiceResult({ passed: true }) })]);
    expect(run([task({ task_id: "lamp-3", status: "listening" })], passed)).toBe(passed);
    const checking = run([{ type: "submitted", task_id: "t1" }]);
    expect(run([task({ task_id: "lamp-4", status: "listening" })], checking)).toBe(checking);
  });

  it("a failed task returns to ready and keeps its error to show", () => {
    const error = { code: "speech.microphone", message: "the microphone gave no sound", params: {} };
    const ui = run([{ type: "submitted", task_id: "t1" }, task({ status: "failed", error })]);
    expect(ui.view?.state.state).toBe("ready");
    expect(ui.task).toEqual({ task_id: "t1", status: "failed", error });
    expect(isBusy(ui)).toBe(false);
  });

  it("ignores other practices' events, meter events when not listening and late events of ended tasks", () => {
    const base = run([{ type: "submitted", task_id: "t1" }]);
    expect(run([task({ practice_id: "other", status: "done", result: practiceResult() })], base)).toBe(base);
    expect(run([{ type: "level", event: { practice_id: "p1", level: 0.5 } }], base).level).toBe(0);
    const done = run([task({ status: "done", result: practiceResult() })], base);
    expect(run([task({ status: "checking" })], done)).toBe(done);
    // A stray task after a verdict changes nothing either.
    expect(run([task({ task_id: "t0", status: "checking" })], done)).toBe(done);
    // Nor does another task while this one is being checked.
    expect(run([task({ task_id: "t9", status: "checking" })], base)).toBe(base);
  });

  it("a new view (retry, resume) replaces the state and follows a running task", () => {
    const done = run([{ type: "submitted", task_id: "t1" }, task({ status: "done", result: practiceResult() })]);
    const retried = run([{ type: "view", view: practiceView({ attempts: 1, state: { state: "ready" } }) }], done);
    expect(shownResult(retried)).toBeNull();
    expect(retried.task).toBeNull();
    expect(retried.view?.attempts).toBe(1);

    const resumed = run(
      [{ type: "view", view: practiceView({ state: { state: "checking", task_id: "t5" } }) }],
      initialPracticeUi,
    );
    expect(resumed.task).toEqual({ task_id: "t5", status: "queued", error: null });
    expect(isBusy(resumed)).toBe(true);
  });

  describe("saying one unclear line again", () => {
    const unclear = practiceResult({
      accuracy: 80,
      errors: [recErr({ type: "substitution", kind: "sound", line: 2, offset: 0, expected: "疑", actual: "七", uncertain: true })],
      lines_to_say_again: [2],
    });
    const feedback = () => run([{ type: "submitted", task_id: "t1" }, task({ status: "done", result: unclear })]);

    it("keeps the verdict on screen while the line is heard, then shows the merged verdict of the same attempt", () => {
      let ui = run([{ type: "retaking", line: 2 }], feedback());
      expect(ui.view?.state).toEqual({ state: "retaking", attempt_id: "a1", line: 2, task_id: "", accuracy: 80, passed: false });
      expect(retakingLine(ui)).toBe(2);
      expect(shownResult(ui)).toBe(unclear);
      // The microphone's events name the task; the line's partial text shows.
      ui = run([task({ task_id: "r1", status: "listening" }), { type: "partial", event: { practice_id: "p1", text: "疑是" } }], ui);
      expect(ui.view?.state).toMatchObject({ state: "retaking", task_id: "r1" });
      expect(ui.partial).toBe("疑是");
      ui = run([task({ task_id: "r1", status: "checking" })], ui);
      expect(isBusy(ui)).toBe(true);
      // Another task's events are not this take's.
      expect(run([task({ task_id: "x", status: "done", result: practiceResult() })], ui)).toBe(ui);
      const merged = practiceResult({ accuracy: 100, passed: true, errors: [], lines_to_say_again: [] });
      ui = run([task({ task_id: "r1", status: "done", result: merged })], ui);
      expect(ui.view?.state).toMatchObject({ state: "done", attempt_id: "a1", accuracy: 100 });
      expect(ui.view?.attempts).toBe(1);
      expect(shownResult(ui)).toBe(merged);
      expect(retakingLine(ui)).toBeNull();
    });

    it("a take that fails, or a refused one, returns to the verdict it came from", () => {
      const error = { code: "speech.nothing_heard", message: "nothing was heard", params: {} };
      const before = feedback();
      const failed = run([{ type: "retaking", line: 2 }, task({ task_id: "r1", status: "listening" }), task({ task_id: "r1", status: "failed", error })], before);
      expect(failed.view?.state).toEqual(before.view?.state);
      expect(failed.task).toEqual({ task_id: "r1", status: "failed", error });
      expect(shownResult(failed)).toBe(unclear);
      const refused = run([{ type: "retaking", line: 2 }, { type: "retake_refused" }], before);
      expect(refused.view?.state).toEqual(before.view?.state);
      // A passed verdict returns to done.
      const passed = run([{ type: "submitted", task_id: "t1" }, task({ status: "done", result: practiceResult({ passed: true, accuracy: 95 }) })]);
      const back = run([{ type: "retaking", line: 2 }, { type: "retake_refused" }], passed);
      expect(back.view?.state).toEqual({ state: "done", attempt_id: "a1", accuracy: 95 });
      // Nothing to retake before a verdict.
      const ready = run([]);
      expect(run([{ type: "retaking", line: 2 }], ready)).toBe(ready);
    });

    it("names lines as a teacher does and offers only lines the verdict has", () => {
      expect([1, 2, 10, 12, 20, 99, 100].map(zhLineNumber)).toEqual(["一", "二", "十", "十二", "二十", "九十九", "100"]);
      expect(linesToSayAgain(practiceResult({ lines_to_say_again: [2, 9] }))).toEqual([{ line: 2, text: "疑是地上霜" }]);
    });
  });
});
