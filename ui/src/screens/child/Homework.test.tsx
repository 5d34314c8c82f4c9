import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import type { HomeworkCard, SayResponse } from "../../api";
import { I18nProvider } from "../../i18n";
import { resetEvents } from "../../test/fakeEvents";
import { profile, renderWithI18n } from "../../test/helpers";
import { sayResponse } from "../../test/samples";
import { ChildHome } from "../ChildHome";
import { HOMEWORK_REPLIES, HomeworkPanel, MAX_PHOTO_BYTES } from "./Homework";

vi.mock("../../api");
vi.mock("../../events", () => import("../../test/fakeEvents"));

const hong = profile({ id: "c1", kind: "child", name: "小红", grade: 2 });

function card(over: Partial<HomeworkCard> = {}): HomeworkCard {
  return {
    step: "mistake",
    subject: "数学",
    total: 3,
    correct: 2,
    mistakes: 1,
    mistake_number: 1,
    question: "9+8=",
    child_answer: "16",
    help: "hint",
    hint: "9 再加几就凑成 10？",
    explanation: null,
    correct_answer: null,
    answers_allowed: false,
    marks: [
      { question: "12+5=", child_answer: "17", correct: true },
      { question: "9+8=", child_answer: "16", correct: false },
      { question: "20-3=", child_answer: "17", correct: true },
    ],
    ...over,
  };
}

function response(over: Partial<SayResponse> = {}): SayResponse {
  return sayResponse({
    trace_id: "t1",
    scene: "homework",
    intent: "homework",
    confidence: "high",
    decision: { decision: "switch", to: "homework", material_id: null },
    reason: "photos of homework",
    text_zh: "一共 3 题，对了 2 题，有 1 题我们再看看。",
    text_en: "Mistake 1: 9+8= (you wrote 16).",
    homework: card(),
    ...over,
  });
}

const photo = (bytes = 8) => new File([new Uint8Array(bytes)], "sheet.png", { type: "image/png" });

describe("the homework card", () => {
  it("says it is checking while the model looks", () => {
    renderWithI18n(<HomeworkPanel state={{ name: "checking" }} busy onSay={vi.fn()} onButton={vi.fn()} />);
    const c = screen.getByTestId("homework-card");
    expect(c.dataset.state).toBe("checking");
    expect(c).toHaveTextContent("正在看作业…");
  });

  it("shows a mistake with its hint first, no explanation and no answer; its buttons say the walk's words", async () => {
    const onSay = vi.fn();
    const onButton = vi.fn();
    renderWithI18n(<HomeworkPanel state={{ name: "card", card: card() }} busy={false} onSay={onSay} onButton={onButton} />);
    expect(screen.getByTestId("homework-count")).toHaveTextContent("共 3 题：对 2 题，错 1 题");
    // Every question of the sheet, marked, with the child's answer only.
    const marks = screen.getAllByTestId("homework-mark");
    expect(marks.map((m) => m.dataset.correct)).toEqual(["true", "false", "true"]);
    expect(marks[1]).toHaveTextContent("✗ 9+8= 16");
    expect(marks[1].querySelector("[aria-label]")?.getAttribute("aria-label")).toBe("错");
    expect(screen.getByTestId("homework-question")).toHaveTextContent("9+8=");
    expect(screen.getByTestId("homework-mistake")).toHaveTextContent("你写的：16");
    expect(screen.getByTestId("homework-hint")).toHaveTextContent("9 再加几就凑成 10？");
    expect(screen.queryByTestId("homework-explanation")).toBeNull();
    expect(screen.queryByTestId("homework-answer")).toBeNull();
    await userEvent.click(screen.getByTestId("homework-more-hint"));
    await userEvent.click(screen.getByTestId("homework-got-it"));
    await userEvent.click(screen.getByTestId("homework-next"));
    expect(onSay.mock.calls.map((c) => c[0])).toEqual([HOMEWORK_REPLIES.moreHint, HOMEWORK_REPLIES.gotIt]);
    expect(onButton).toHaveBeenCalledWith("screen:next");
  });

  it("shows the explanation once given, and the answer only when the response has it", () => {
    const { rerender } = renderWithI18n(
      <HomeworkPanel
        state={{ name: "card", card: card({ help: "explanation", explanation: "把 8 分成 1 和 7，9+1=10，10+7=17。", answers_allowed: true }) }}
        busy={false}
        onSay={vi.fn()} onButton={vi.fn()}
      />,
    );
    expect(screen.getByTestId("homework-explanation")).toHaveTextContent("9+1=10");
    // Allowed, but not asked for yet: still no answer.
    expect(screen.queryByTestId("homework-answer")).toBeNull();
    rerender(
      <I18nProvider initialLocale="zh-CN">
        <HomeworkPanel
          state={{ name: "card", card: card({ help: "answer", explanation: "把 8 分成 1 和 7。", correct_answer: "17", answers_allowed: true }) }}
          busy={false}
          onSay={vi.fn()} onButton={vi.fn()}
        />
      </I18nProvider>,
    );
    expect(screen.getByTestId("homework-answer")).toHaveTextContent("正确答案：17");
  });

  it("says an error in plain words", () => {
    renderWithI18n(<HomeworkPanel state={{ name: "error", code: "homework.not_an_image", message: "这个文件不是照片。" }} busy={false} onSay={vi.fn()} onButton={vi.fn()} />);
    const e = screen.getByTestId("homework-error");
    expect(e.dataset.code).toBe("homework.not_an_image");
    expect(e).toHaveTextContent("这个文件不是照片。");
  });
});

describe("photos of homework on the child's home", () => {
  beforeEach(() => {
    resetEvents();
    vi.mocked(api.materialsList).mockResolvedValue([]);
    vi.mocked(api.reviewsDue).mockResolvedValue([]);
    vi.mocked(api.practiceCurrent).mockResolvedValue(null);
    vi.mocked(api.lampStatus).mockResolvedValue(null);
    vi.mocked(api.planToday).mockResolvedValue({ profile_id: "c1", day: "2026-03-02", tasks: [], done: 0, total: 0 });
    vi.mocked(api.readPhotos).mockImplementation(async (files) => files.map((f) => ({ name: f.name, data: "iVBORw0KGgo=" })));
    vi.mocked(api.sayPhotos).mockReset();
    vi.mocked(api.say).mockReset();
  });

  it("checks a photo (正在看作业…), shows the card, and 再给个提示 goes through say like typed words", async () => {
    let answer: (r: SayResponse) => void = () => {};
    vi.mocked(api.sayPhotos).mockImplementation(() => new Promise((resolve) => (answer = resolve)));
    vi.mocked(api.say).mockResolvedValue(response({ homework: card({ help: "explanation", explanation: "把 8 分成 1 和 7，9+1=10，10+7=17。" }) }));
    renderWithI18n(<ChildHome profile={hong} onExit={vi.fn()} />);
    await userEvent.upload(screen.getByTestId("homework-photo-input"), photo());
    expect(await screen.findByText("正在看作业…")).toBeInTheDocument();
    expect(screen.getByTestId("homework-photo")).toBeDisabled();
    expect(vi.mocked(api.sayPhotos).mock.calls[0]).toEqual(["c1", [{ name: "sheet.png", data: "iVBORw0KGgo=" }], ""]);
    answer(response());
    await waitFor(() => expect(screen.getByTestId("homework-card").dataset.state).toBe("card"));
    expect(screen.getByTestId("homework-hint")).toHaveTextContent("9 再加几就凑成 10？");
    await userEvent.click(screen.getByTestId("homework-more-hint"));
    expect(api.say).toHaveBeenCalledWith("c1", "再给个提示");
    expect(await screen.findByTestId("homework-explanation")).toHaveTextContent("9+1=10");
    expect(screen.queryByTestId("homework-answer")).toBeNull();
  });

  it("says a photo the core refused in the error table's words", async () => {
    vi.mocked(api.sayPhotos).mockResolvedValue(
      response({
        homework: undefined,
        decision: { decision: "reject", reason: "not a photo" },
        error: { code: "homework.not_an_image", message: "/data/inbox/photo-1 is not a photo", params: {} },
      }),
    );
    renderWithI18n(<ChildHome profile={hong} onExit={vi.fn()} />);
    await userEvent.upload(screen.getByTestId("homework-photo-input"), photo());
    const e = await screen.findByTestId("homework-error");
    expect(e.dataset.code).toBe("homework.not_an_image");
    expect(e).toHaveTextContent("这个文件不是照片");
    expect(e).not.toHaveTextContent("/data/inbox");
  });

  it("says a parent needs to set up a model when none is", async () => {
    vi.mocked(api.sayPhotos).mockResolvedValue(response({ homework: undefined, needs_model: true, text_zh: "需要家长先在设置里配好模型。" }));
    renderWithI18n(<ChildHome profile={hong} onExit={vi.fn()} />);
    await userEvent.upload(screen.getByTestId("homework-photo-input"), photo());
    expect(await screen.findByTestId("homework-error")).toHaveTextContent("需要家长先设置模型");
  });

  it("refuses a photo that is too large without sending it", async () => {
    renderWithI18n(<ChildHome profile={hong} onExit={vi.fn()} />);
    await userEvent.upload(screen.getByTestId("homework-photo-input"), photo(MAX_PHOTO_BYTES + 1));
    const e = await screen.findByTestId("homework-error");
    expect(e.dataset.code).toBe("homework.photo_too_large");
    expect(within(e).getByText(/太大/)).toBeInTheDocument();
    expect(api.sayPhotos).not.toHaveBeenCalled();
  });
});
