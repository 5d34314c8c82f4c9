import { act, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import type { SayResponse, Talking } from "../../api";
import { renderWithI18n } from "../../test/helpers";
import { sayResponse } from "../../test/samples";
import { onTalking, TalkButton } from "./TalkButton";

vi.mock("../../api");

function response(over: Partial<SayResponse>): SayResponse {
  return sayResponse({
    trace_id: "t1",
    scene: "recite",
    intent: "recite",
    confidence: "high",
    decision: { decision: "switch", to: "recite", material_id: "m1" },
    reason: "another scene, clearly asked for",
    text_zh: "我们来背《静夜思》吧！",
    text_en: "Let's recite 静夜思!",
    material: { id: "m1", title: "静夜思" },
    heard: "我要背静夜思",
    timings: { speech_us: 900, route_us: 1, decide_us: 1, act_us: 1, total_us: 903 },
    ...over,
  });
}

/** api.talk that hands its progress callback and its answer to the test. */
function pendingTalk() {
  const talk: { report: (e: Talking) => void; answer: (r: SayResponse) => void; fail: (e: string) => void } = {
    report: () => {},
    answer: () => {},
    fail: () => {},
  };
  vi.mocked(api.talk).mockImplementation(
    (_profile, onEvent) =>
      new Promise<SayResponse>((resolve, reject) => {
        talk.report = onEvent;
        talk.answer = resolve;
        talk.fail = reject;
      }),
  );
  return talk;
}

const state = () => screen.getByTestId("talk").dataset.state;

describe("the talk button", () => {
  beforeEach(() => {
    vi.mocked(api.talk).mockReset();
    vi.mocked(api.talkStop).mockResolvedValue(true);
  });

  it("goes idle → listening (level, text so far, a stop) → thinking → answered, and hands the answer on", async () => {
    const talk = pendingTalk();
    const onAnswer = vi.fn();
    const user = userEvent.setup();
    renderWithI18n(<TalkButton profileId="c1" onAnswer={onAnswer} />);
    expect(state()).toBe("idle");
    await user.click(screen.getByTestId("talk-button"));
    expect(api.talk).toHaveBeenCalledWith("c1", expect.any(Function));
    expect(state()).toBe("listening");
    expect(screen.getByTestId("talk-status")).toHaveTextContent("在听呢");
    act(() => talk.report({ kind: "level", level: 0.4 }));
    expect(screen.getByTestId("talk-level")).toHaveAttribute("aria-valuenow", "40");
    act(() => talk.report({ kind: "partial", text: "我要背" }));
    expect(screen.getByTestId("talk-status")).toHaveTextContent("我要背");
    expect(screen.getByTestId("talk-stop")).toBeInTheDocument();
    act(() => talk.report({ kind: "thinking" }));
    expect(state()).toBe("thinking");
    expect(screen.getByTestId("talk-status")).toHaveTextContent("想一想");
    expect(screen.getByTestId("talk-button")).toBeDisabled();
    const r = response({});
    await act(async () => talk.answer(r));
    expect(state()).toBe("answered");
    expect(screen.getByTestId("talk-status")).toHaveTextContent("听到：我要背静夜思");
    expect(onAnswer).toHaveBeenCalledWith(r);
    // And again: the button is back.
    expect(screen.getByTestId("talk-button")).toBeEnabled();
  });

  it("the stop button ends the listening; what was said is still answered", async () => {
    const talk = pendingTalk();
    const user = userEvent.setup();
    renderWithI18n(<TalkButton profileId="c1" onAnswer={vi.fn()} />);
    await user.click(screen.getByTestId("talk-button"));
    await user.click(screen.getByTestId("talk-stop"));
    expect(api.talkStop).toHaveBeenCalledWith("c1");
    act(() => talk.report({ kind: "thinking" }));
    await act(async () => talk.answer(response({})));
    expect(state()).toBe("answered");
  });

  it("nothing heard, or no microphone, is said in plain words and nothing is handed on", async () => {
    const user = userEvent.setup();
    const onAnswer = vi.fn();
    renderWithI18n(<TalkButton profileId="c1" onAnswer={onAnswer} />);
    vi.mocked(api.talk).mockResolvedValueOnce(
      response({
        error: { code: "speech.nothing_heard", message: "nothing was heard", params: {} },
        text_zh: "没听清楚，靠近麦克风再说一次吧。",
        heard: null,
      }),
    );
    await user.click(screen.getByTestId("talk-button"));
    const error = await screen.findByTestId("talk-error");
    expect(error).toHaveTextContent("没听清楚，靠近麦克风再说一次吧。");
    expect(error).toHaveAttribute("data-code", "speech.nothing_heard");
    expect(state()).toBe("error");
    vi.mocked(api.talk).mockResolvedValueOnce(
      response({
        error: { code: "speech.microphone", message: "no input device", params: {} },
        text_zh: "没找到能用的麦克风，请家长看看麦克风接好了没有。打字也可以哦。",
        heard: null,
      }),
    );
    await user.click(screen.getByTestId("talk-button"));
    await waitFor(() => expect(screen.getByTestId("talk-error")).toHaveAttribute("data-code", "speech.microphone"));
    expect(screen.getByTestId("talk-error")).toHaveTextContent("没找到能用的麦克风");
    // A failed call (already said in plain words by api.ts) is shown as it is.
    vi.mocked(api.talk).mockRejectedValueOnce("同桌还没准备好");
    await user.click(screen.getByTestId("talk-button"));
    await waitFor(() => expect(screen.getByTestId("talk-error")).toHaveTextContent("同桌还没准备好"));
    expect(onAnswer).not.toHaveBeenCalled();
  });

  it("speaks English to an English-speaking child", async () => {
    const user = userEvent.setup();
    renderWithI18n(<TalkButton profileId="c1" onAnswer={vi.fn()} />, "en");
    vi.mocked(api.talk).mockResolvedValueOnce(
      response({
        error: { code: "speech.nothing_heard", message: "nothing", params: {} },
        text_en: "I didn't catch that.",
        heard: null,
      }),
    );
    expect(screen.getByTestId("talk-button")).toHaveTextContent("Talk");
    await user.click(screen.getByTestId("talk-button"));
    expect(await screen.findByTestId("talk-error")).toHaveTextContent("I didn't catch that.");
  });

  it("progress only moves a listening talk, and thinking always follows", () => {
    const listening = { name: "listening" as const, level: 0, partial: "" };
    expect(onTalking(listening, { kind: "level", level: 3 })).toEqual({ ...listening, level: 1 });
    expect(onTalking({ name: "thinking" }, { kind: "level", level: 0.5 })).toEqual({ name: "thinking" });
    expect(onTalking(listening, { kind: "thinking" })).toEqual({ name: "thinking" });
  });
});
