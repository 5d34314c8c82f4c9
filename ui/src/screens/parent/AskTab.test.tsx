import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import * as family from "../../familyApi";
import type { ProgressAnswer } from "../../protocol";
import { profile, renderWithI18n } from "../../test/helpers";
import { NOTICE_AGREED, NOTICE_NONE } from "../../test/samples";
import { AskTab } from "./AskTab";

vi.mock("../../api", async (importActual) => ({
  ...(await importActual<typeof import("../../api")>()),
  profilesList: vi.fn(),
  llmSettingsGet: vi.fn(),
}));
vi.mock("../../familyApi");

const ming = profile({ id: "c1", kind: "child", name: "小明" });
const hong = profile({ id: "c2", kind: "child", name: "小红" });

const accuracy: ProgressAnswer = {
  question: "accuracy_this_week",
  text: "小明 recited 5 times on 3 of the last 7 days; average accuracy on those days 88.0%",
  chart: {
    kind: "line",
    title: "accuracy per day (%)",
    labels: ["2026-11-21", "2026-11-22", "2026-11-23"],
    series: [{ name: "accuracy", values: [80, 0, 96] }],
  },
};

describe("ask about progress", () => {
  beforeEach(() => {
    vi.mocked(api.profilesList).mockResolvedValue([profile({ id: "p1", kind: "parent", name: "妈妈" }), ming, hong]);
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: null, base_url: null, has_key: false, notice: NOTICE_NONE });
    vi.mocked(family.ask).mockReset();
  });

  it("without a model says so, and a built-in question's chip answers with its chart", async () => {
    const user = userEvent.setup();
    vi.mocked(family.ask).mockResolvedValue(accuracy);
    renderWithI18n(<AskTab />);
    expect(await screen.findByTestId("ask-no-model")).toHaveTextContent("还没有设置 AI 模型");
    const chips = screen.getAllByTestId("ask-chip");
    expect(chips.map((c) => c.textContent)).toEqual(["这周背得怎么样？", "哪些字错得最多？", "这周复习了几次？", "这周练了多久？"]);
    await waitFor(() => expect(chips[0]).toBeEnabled());
    await user.click(chips[0]);
    expect(family.ask).toHaveBeenCalledWith("c1", "这周背得怎么样？");
    const answer = await screen.findByTestId("ask-answer");
    expect(answer).toHaveAttribute("data-question", "accuracy_this_week");
    expect(within(answer).getByTestId("ask-answer-text")).toHaveTextContent("average accuracy on those days 88.0%");
    expect(within(answer).getByText("内置问题，直接从学习记录算出")).toBeInTheDocument();
    const chart = await within(answer).findByTestId("answer-chart");
    expect(chart).toHaveAttribute("data-kind", "line");
    expect(chart.querySelector("svg")).not.toBeNull();
  });

  it("a typed question goes to the chosen child; with a model there is no warning", async () => {
    const user = userEvent.setup();
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: "openai:m", base_url: null, has_key: true, notice: NOTICE_AGREED });
    vi.mocked(family.ask).mockResolvedValue({ question: "model", text: "The reviews are going well.", chart: null });
    renderWithI18n(<AskTab />, "en");
    await waitFor(() => expect(api.llmSettingsGet).toHaveBeenCalled());
    await screen.findByRole("option", { name: "小红" });
    await user.selectOptions(screen.getByTestId("ask-child"), "c2");
    await user.type(screen.getByTestId("ask-input"), "Is she keeping up with reviews?");
    await user.click(screen.getByTestId("ask-submit"));
    expect(family.ask).toHaveBeenCalledWith("c2", "Is she keeping up with reviews?");
    const answer = await screen.findByTestId("ask-answer");
    expect(answer).toHaveTextContent("The reviews are going well.");
    expect(answer).toHaveTextContent("Answered by the AI model");
    expect(within(answer).queryByTestId("answer-chart")).toBeNull();
    expect(screen.queryByTestId("ask-no-model")).toBeNull();
  });

  it("a question no built-in one matches, without a model, is said in the parent's language", async () => {
    const user = userEvent.setup();
    vi.mocked(family.ask).mockRejectedValue({
      code: "ask.unknown_question",
      message: "without a model, Deskmate answers these questions: …",
      params: { question: "天为什么是蓝的" },
    });
    renderWithI18n(<AskTab />);
    await screen.findByRole("option", { name: "小明" });
    await user.type(screen.getByTestId("ask-input"), "天为什么是蓝的");
    await user.click(screen.getByTestId("ask-submit"));
    expect(await screen.findByTestId("ask-error")).toHaveTextContent("只能回答这几个问题：这周背得怎么样、哪些字错得最多、复习了几次、练了多久。“天为什么是蓝的”不在其中");
    expect(screen.queryByTestId("ask-answer")).toBeNull();
  });
});
