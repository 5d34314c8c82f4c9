import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import type { TaskEvent } from "../../events";
import { emit, resetEvents } from "../../test/fakeEvents";
import { profile, renderWithI18n } from "../../test/helpers";
import { jingyesi, practiceResult, practiceView, recErr } from "../../test/samples";
import { Practice } from "./Practice";

vi.mock("../../api");
vi.mock("../../events", () => import("../../test/fakeEvents"));

const ming = profile({ id: "c1", kind: "child", name: "小明", grade: 2 });
const taskEvent = (over: Partial<TaskEvent>): TaskEvent => ({
  practice_id: "p1",
  task_id: "t1",
  status: "queued",
  error: null,
  result: null,
  ...over,
});

function renderPractice(props: Partial<Parameters<typeof Practice>[0]> = {}, locale: "zh-CN" | "en" = "zh-CN") {
  const onBack = vi.fn();
  renderWithI18n(<Practice profile={ming} materialId="m1" material={jingyesi} onBack={onBack} {...props} />, locale);
  return { user: userEvent.setup(), onBack };
}

describe("practice: reciting by voice", () => {
  beforeEach(() => {
    resetEvents();
    vi.mocked(api.practiceStart).mockResolvedValue(practiceView());
    vi.mocked(api.practiceRecordStart).mockResolvedValue({ task_id: "t1" });
    vi.mocked(api.practiceRecordStop).mockResolvedValue({ task_id: "t1" });
    vi.mocked(api.practiceLeave).mockResolvedValue(null);
  });

  it("starts a voice practice, records, shows the level and partial text, and follows the task to a verdict", async () => {
    const { user } = renderPractice();
    expect(screen.getByTestId("practice-screen")).toBeInTheDocument();
    expect(screen.getByTestId("material-detail-title")).toHaveTextContent("静夜思");
    await waitFor(() => expect(api.practiceStart).toHaveBeenCalledWith("c1", "m1", "voice"));
    expect(screen.getByTestId("practice-mode-voice")).toHaveAttribute("aria-pressed", "true");
    expect(screen.getByTestId("attempt-count")).toHaveTextContent("第 1 次");

    const button = screen.getByTestId("record-button");
    await waitFor(() => expect(button).toBeEnabled());
    expect(button).toHaveAttribute("data-state", "idle");
    await user.click(button);
    expect(api.practiceRecordStart).toHaveBeenCalledWith("p1");
    expect(button).toHaveAttribute("data-state", "listening");

    emit("practice://level", { practice_id: "p1", level: 0.62 });
    expect(screen.getByTestId("level-meter")).toHaveAttribute("aria-valuenow", "62");
    emit("practice://partial", { practice_id: "p1", text: "床前明月光" });
    expect(screen.getByTestId("partial-transcript")).toHaveTextContent("床前明月光");
    // Another practice's events are not ours.
    emit("practice://partial", { practice_id: "other", text: "别的" });
    expect(screen.getByTestId("partial-transcript")).toHaveTextContent("床前明月光");

    await user.click(button);
    expect(api.practiceRecordStop).toHaveBeenCalledWith("p1");
    expect(screen.getByTestId("task-status")).toHaveAttribute("data-status", "queued");
    expect(screen.getByTestId("record-button")).toBeDisabled();

    emit("practice://task", taskEvent({ status: "transcribing" }));
    expect(screen.getByTestId("task-status")).toHaveTextContent("正在听你背的内容");
    emit("practice://task", taskEvent({ status: "checking" }));
    expect(screen.getByTestId("task-status")).toHaveAttribute("data-status", "checking");

    emit("practice://task", taskEvent({ status: "done", result: practiceResult() }));
    const result = screen.getByTestId("result-screen");
    expect(within(result).getByTestId("accuracy")).toHaveTextContent(/^70$/);
    expect(within(result).getByTestId("result-passed")).toHaveAttribute("data-passed", "false");
    expect(within(result).getByTestId("attempt-count")).toHaveTextContent("第 1 次");
    expect(screen.queryByTestId("record-button")).not.toBeInTheDocument();
  });

  it("follows a task the VAD ended by itself, and says so plainly when a check fails", async () => {
    const { user } = renderPractice();
    const button = screen.getByTestId("record-button");
    await waitFor(() => expect(button).toBeEnabled());
    await user.click(button);
    emit("practice://task", taskEvent({ task_id: "vad", status: "transcribing" }));
    expect(screen.getByTestId("task-status")).toHaveAttribute("data-status", "transcribing");
    expect(screen.getByTestId("record-button")).toHaveAttribute("data-state", "idle");
    // The core's code is said in the child's language, not its English message.
    const error = { code: "speech.nothing_heard", message: "nothing was heard — try again", params: {} };
    emit("practice://task", taskEvent({ task_id: "vad", status: "failed", error }));
    expect(screen.getByTestId("task-status")).toHaveTextContent("没有听到背诵。请靠近麦克风再背一遍");
    expect(screen.getByTestId("task-status")).not.toHaveTextContent("nothing was heard");
    expect(screen.getByTestId("record-button")).toBeEnabled();
  });

  it("a recording the lamp's start button opened shows as listening and can be stopped on screen", async () => {
    vi.mocked(api.practiceRecordStop).mockResolvedValue({ task_id: "lamp-1" });
    const { user } = renderPractice();
    const button = screen.getByTestId("record-button");
    await waitFor(() => expect(button).toBeEnabled());
    emit("practice://task", taskEvent({ task_id: "lamp-1", status: "listening" }));
    expect(button).toHaveAttribute("data-state", "listening");
    expect(api.practiceRecordStart).not.toHaveBeenCalled();
    await user.click(button);
    expect(api.practiceRecordStop).toHaveBeenCalledWith("p1");
    expect(screen.getByTestId("task-status")).toHaveAttribute("data-status", "queued");
  });

  it("shows a command's error as it comes", async () => {
    vi.mocked(api.practiceRecordStart).mockRejectedValue("no microphone was found");
    const { user } = renderPractice();
    await waitFor(() => expect(screen.getByTestId("record-button")).toBeEnabled());
    await user.click(screen.getByTestId("record-button"));
    expect(await screen.findByTestId("practice-error")).toHaveTextContent("no microphone was found");
    expect(screen.getByTestId("record-button")).toHaveAttribute("data-state", "idle");
  });

  it("a re-ask names the unclear line, records just that line and shows the same attempt's updated verdict", async () => {
    vi.mocked(api.practiceRetakeStart).mockResolvedValue({ task_id: "r1" });
    const { user } = renderPractice();
    const button = screen.getByTestId("record-button");
    await waitFor(() => expect(button).toBeEnabled());
    await user.click(button);
    const unclear = practiceResult({
      accuracy: 80,
      errors: [recErr({ type: "substitution", kind: "sound", line: 2, offset: 0, expected: "疑是地上", actual: "七八九十", uncertain: true })],
      lines_to_say_again: [2],
      feedback: { zh: "正确率 80%。第二句「疑是地上霜」没听清，再读一遍好吗？", en: "80% right.", tip_zh: null, tip_en: null },
    });
    emit("practice://task", taskEvent({ status: "done", result: unclear }));
    const ask = await screen.findByTestId("retake-ask-2");
    expect(ask).toHaveTextContent("第二句「疑是地上霜」没听清，再读一遍好吗？");
    expect(screen.queryByTestId("retake-ask-1")).not.toBeInTheDocument();

    await user.click(within(ask).getByTestId("retake-line-2"));
    expect(api.practiceRetakeStart).toHaveBeenCalledWith("p1", 2);
    expect(api.practiceRecordStart).toHaveBeenCalledTimes(1);
    const listening = screen.getByTestId("retake-listening");
    expect(listening).toHaveAttribute("data-line", "2");
    expect(listening).toHaveTextContent("我在听第二句");
    emit("practice://task", taskEvent({ task_id: "r1", status: "listening" }));
    emit("practice://partial", { practice_id: "p1", text: "疑是地上" });
    expect(screen.getByTestId("retake-partial")).toHaveTextContent("疑是地上");
    await user.click(screen.getByTestId("retake-stop"));
    expect(api.practiceRecordStop).toHaveBeenCalledWith("p1");
    emit("practice://task", taskEvent({ task_id: "r1", status: "checking" }));
    expect(screen.getByTestId("retake-listening")).toHaveTextContent("正在");
    expect(screen.getByTestId("retry-button")).toBeDisabled();

    const merged = practiceResult({ accuracy: 100, passed: true, errors: [], lines_to_say_again: [], feedback: { zh: "太棒了！一个字都没错，全部背对了！", en: "Wonderful!", tip_zh: null, tip_en: null } });
    emit("practice://task", taskEvent({ task_id: "r1", status: "done", result: merged }));
    const result = screen.getByTestId("result-screen");
    expect(within(result).getByTestId("accuracy")).toHaveTextContent(/^100$/);
    expect(within(result).getByTestId("result-passed")).toHaveAttribute("data-passed", "true");
    // The same attempt: still the first.
    expect(within(result).getByTestId("attempt-count")).toHaveTextContent("第 1 次");
    expect(screen.getByTestId("feedback-text")).toHaveTextContent("太棒了");
    expect(screen.queryByTestId("retake-listening")).not.toBeInTheDocument();
    expect(screen.queryByTestId("retake-ask-2")).not.toBeInTheDocument();
  });

  it("a retake that hears nothing says so and offers the line again; in English it names line 2", async () => {
    vi.mocked(api.practiceRetakeStart).mockResolvedValue({ task_id: "r1" });
    const unclear = practiceResult({
      errors: [recErr({ type: "omission", kind: "part", line: 2, offset: 4, expected: "霜", uncertain: true })],
      lines_to_say_again: [2],
    });
    const { user } = renderPractice(
      { resume: practiceView({ attempts: 1, state: { state: "feedback", attempt_id: "a1", accuracy: 70, passed: false }, last_result: unclear }) },
      "en",
    );
    const ask = screen.getByTestId("retake-ask-2");
    expect(ask).toHaveTextContent("I didn't catch line 2 “疑是地上霜” clearly — could you say it again?");
    await user.click(within(ask).getByTestId("retake-line-2"));
    const error = { code: "speech.nothing_heard", message: "nothing was heard", params: {} };
    emit("practice://task", taskEvent({ task_id: "r1", status: "listening" }));
    emit("practice://task", taskEvent({ task_id: "r1", status: "failed", error }));
    expect(await screen.findByRole("alert")).toHaveTextContent(/closer to the microphone/i);
    expect(screen.getByTestId("retake-line-2")).toBeEnabled();
    expect(within(screen.getByTestId("result-screen")).getByTestId("accuracy")).toHaveTextContent(/^70$/);
  });

  it("a refused retake leaves the verdict as it was and says why", async () => {
    vi.mocked(api.practiceRetakeStart).mockRejectedValue({ code: "practice.not_now", message: "line 2 is not one this verdict asks to hear again", params: {} });
    const unclear = practiceResult({ lines_to_say_again: [2] });
    const { user } = renderPractice({
      resume: practiceView({ attempts: 1, state: { state: "feedback", attempt_id: "a1", accuracy: 70, passed: false }, last_result: unclear }),
    });
    await user.click(screen.getByTestId("retake-line-2"));
    expect(await screen.findByRole("alert")).toBeInTheDocument();
    expect(screen.queryByTestId("retake-listening")).not.toBeInTheDocument();
    expect(screen.getByTestId("retake-line-2")).toBeEnabled();
  });

  it("shows the text, hides it, or shows hints: how each line starts", async () => {
    const { user } = renderPractice();
    expect(screen.getByTestId("material-detail-body").textContent).toBe(jingyesi.body);
    expect(screen.getByTestId("text-mode-show")).toHaveAttribute("aria-pressed", "true");

    await user.click(screen.getByTestId("text-mode-hide"));
    expect(screen.queryByTestId("material-detail-body")).not.toBeInTheDocument();
    expect(screen.queryByTestId("material-hints")).not.toBeInTheDocument();
    expect(screen.getByTestId("text-mode-hide")).toHaveAttribute("aria-pressed", "true");
    expect(screen.getByTestId("text-mode-show")).toHaveAttribute("aria-pressed", "false");

    await user.click(screen.getByTestId("text-mode-hints"));
    expect(screen.queryByTestId("material-detail-body")).not.toBeInTheDocument();
    const hints = screen.getAllByTestId("hint-line").map((l) => l.textContent);
    expect(hints).toEqual(["床○○○○，", "疑○○○○。", "举○○○○，", "低○○○○。"]);
    // Nothing of a line but its first character shows.
    expect(screen.getByTestId("material-hints").textContent).not.toContain("明月");

    await user.click(screen.getByTestId("text-mode-show"));
    expect(screen.getByTestId("material-detail-body")).toBeInTheDocument();
    expect(screen.queryByTestId("material-hints")).not.toBeInTheDocument();
  });

  it("hints for an English rhyme keep the first word of each line", async () => {
    const rhyme = { ...jingyesi, id: "m2", lang: "en" as const, title: "Twinkle", body: "Twinkle, twinkle, little star,\nHow I wonder what you are!" };
    vi.mocked(api.practiceStart).mockResolvedValue(practiceView({ material: rhyme }));
    const { user } = renderPractice({ materialId: "m2", material: rhyme });
    await user.click(screen.getByTestId("text-mode-hints"));
    expect(screen.getAllByTestId("hint-line").map((l) => l.textContent)).toEqual([
      "Twinkle, _______, ______ ____,",
      "How _ ______ ____ ___ ___!",
    ]);
  });

  it("hides the text at first for a review", async () => {
    vi.mocked(api.practiceStart).mockResolvedValue(practiceView({ is_review: true }));
    renderPractice();
    await waitFor(() => expect(screen.queryByTestId("material-detail-body")).not.toBeInTheDocument());
    expect(screen.getByTestId("text-mode-hide")).toHaveAttribute("aria-pressed", "true");
    expect(screen.getByText("今天复习")).toBeInTheDocument();
  });

  it("leaves the practice when going back", async () => {
    const { user, onBack } = renderPractice();
    await waitFor(() => expect(api.practiceStart).toHaveBeenCalled());
    await waitFor(() => expect(screen.getByTestId("record-button")).toBeEnabled());
    await user.click(screen.getByTestId("back-button"));
    expect(api.practiceLeave).toHaveBeenCalledWith("p1");
    expect(onBack).toHaveBeenCalledTimes(1);
  });
});

describe("practice: writing it out (默写)", () => {
  beforeEach(() => {
    resetEvents();
    vi.mocked(api.practiceStart).mockImplementation(async (_p, _m, mode) => practiceView({ mode }));
    vi.mocked(api.practiceSubmitText).mockResolvedValue({ task_id: "t1" });
  });

  it("switches mode through practice_start and submits the typed text", async () => {
    const { user } = renderPractice();
    await waitFor(() => expect(api.practiceStart).toHaveBeenCalledTimes(1));
    await user.click(screen.getByTestId("practice-mode-text"));
    expect(api.practiceStart).toHaveBeenLastCalledWith("c1", "m1", "text");
    expect(screen.queryByTestId("record-button")).not.toBeInTheDocument();
    await waitFor(() => expect(screen.getByTestId("text-submit")).toBeEnabled());

    await user.click(screen.getByTestId("text-submit"));
    expect(api.practiceSubmitText).not.toHaveBeenCalled();
    expect(screen.getByTestId("practice-error")).toHaveTextContent("先写一写再交哦。");

    await user.type(screen.getByTestId("text-answer"), "床前明月光，疑是地上霜。");
    await user.click(screen.getByTestId("text-submit"));
    expect(api.practiceSubmitText).toHaveBeenCalledWith("p1", "床前明月光，疑是地上霜。");
    expect(screen.getByTestId("task-status")).toHaveAttribute("data-status", "queued");
    expect(screen.getByTestId("text-answer")).toBeDisabled();
  });
});

describe("practice: the result", () => {
  beforeEach(() => {
    resetEvents();
    vi.mocked(api.practiceLeave).mockResolvedValue(null);
  });

  const failed = practiceView({
    attempts: 1,
    state: { state: "feedback", attempt_id: "a1", accuracy: 70, passed: false },
    last_result: practiceResult({
      errors: [
        recErr({ type: "substitution", kind: "tone", line: 3, offset: 1, expected: "头", actual: "偷", label_zh: "字音错（声调）", label_en: "wrong tone" }),
        recErr({ type: "omission", kind: "line", line: 4, offset: 0, expected: "低头思故乡", label_zh: "漏了一句", label_en: "missed a line" }),
        recErr({ type: "substitution", kind: "sound", line: 1, offset: 3, expected: "月", actual: "越", uncertain: true, label_zh: "字音错", label_en: "wrong sound" }),
        recErr({ type: "insertion", kind: "extra", line: 2, offset: 5, expected: "", actual: "呀", label_zh: "多字", label_en: "extra words" }),
      ],
    }),
  });

  it("marks each error on its line, by type; uncertain parts are 'say it again', not errors", () => {
    renderPractice({ resume: failed });
    expect(api.practiceStart).not.toHaveBeenCalled();
    const marks = screen.getAllByTestId("error-mark");
    expect(marks.map((m) => [m.dataset.type, m.dataset.line])).toEqual([
      ["insertion", "2"],
      ["substitution", "3"],
      ["omission", "4"],
    ]);
    expect(marks[1]).toHaveTextContent("头");
    expect(marks[1]).toHaveTextContent("字音错（声调）");
    expect(marks[1]).toHaveTextContent("听成了“偷”");
    expect(marks[0]).toHaveTextContent("+呀");
    expect(marks[2]).toHaveTextContent("低头思故乡");

    const unsure = screen.getByTestId("uncertain-mark");
    expect(unsure).toHaveAttribute("data-line", "1");
    expect(unsure).toHaveTextContent("月");
    expect(unsure).toHaveTextContent("再说一遍");
    expect(unsure).not.toHaveClass("mark-substitution");

    // The line text around the marks is all there, in order.
    const line3 = screen.getAllByRole("listitem").find((li) => li.dataset.line === "3")!;
    expect(line3.textContent?.startsWith("举头")).toBe(true);
    expect(line3.textContent).toContain("望明月");

    expect(screen.getByTestId("feedback-text")).toHaveTextContent("还差一点点");
    expect(screen.getByTestId("memory-tip")).toHaveTextContent("头要读第二声");
    // No review was scheduled by this attempt: no next-review line.
    expect(screen.queryByTestId("next-review")).not.toBeInTheDocument();
    expect(screen.getByTestId("retry-button")).toBeInTheDocument();
    expect(screen.queryByTestId("done-button")).not.toBeInTheDocument();
  });

  it("speaks the UI language: English feedback, tip and labels", () => {
    renderPractice({ resume: failed }, "en");
    expect(screen.getByTestId("feedback-text")).toHaveTextContent("almost there");
    expect(screen.getByTestId("memory-tip")).toHaveTextContent("raising your head");
    expect(screen.getAllByTestId("error-mark")[1]).toHaveTextContent("wrong tone");
    expect(screen.getByTestId("uncertain-mark")).toHaveTextContent("Say it again");
    expect(screen.getByTestId("result-passed")).toHaveTextContent("Almost there");
  });

  it("retries through practice_retry and comes back to recording, attempt 2", async () => {
    vi.mocked(api.practiceRetry).mockResolvedValue(practiceView({ attempts: 1, state: { state: "ready" } }));
    const { user } = renderPractice({ resume: failed });
    await user.click(screen.getByTestId("retry-button"));
    expect(api.practiceRetry).toHaveBeenCalledWith("p1");
    expect(screen.queryByTestId("result-screen")).not.toBeInTheDocument();
    expect(screen.getByTestId("record-button")).toHaveAttribute("data-state", "idle");
    expect(screen.getByTestId("attempt-count")).toHaveTextContent("第 2 次");
  });

  it("a pass shows Done, no retry and no tip when there is none", async () => {
    const passed = practiceView({
      attempts: 2,
      state: { state: "done", attempt_id: "a2", accuracy: 100 },
      last_result: practiceResult({
        attempt_number: 2,
        accuracy: 99.6,
        passed: true,
        errors: [],
        feedback: { zh: "太棒了！", en: "Wonderful!", tip_zh: null, tip_en: null },
        next_review_at: "2026-11-25T12:00:00Z",
        review_interval_days: 3,
      }),
    });
    const { user, onBack } = renderPractice({ resume: passed });
    // The schedule's next review, as the core set it.
    const next = screen.getByTestId("next-review");
    expect(next).toHaveAttribute("data-date", "2026-11-25");
    expect(next).toHaveTextContent("下次复习：2026-11-25（3 天后）");
    expect(screen.getByTestId("accuracy")).toHaveTextContent(/^100$/);
    expect(screen.getByTestId("result-passed")).toHaveAttribute("data-passed", "true");
    expect(screen.getByTestId("result-passed")).toHaveTextContent("过关啦");
    expect(screen.getByTestId("attempt-count")).toHaveTextContent("第 2 次");
    expect(screen.queryByTestId("memory-tip")).not.toBeInTheDocument();
    expect(screen.queryByTestId("retry-button")).not.toBeInTheDocument();
    expect(screen.queryByTestId("error-mark")).not.toBeInTheDocument();
    await user.click(screen.getByTestId("done-button"));
    expect(api.practiceLeave).toHaveBeenCalledWith("p1");
    expect(onBack).toHaveBeenCalled();
  });
});
