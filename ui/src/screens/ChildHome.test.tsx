import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../api";
import type { MaterialFilter } from "../api";
import { emit, resetEvents } from "../test/fakeEvents";
import { material, profile, renderWithI18n } from "../test/helpers";
import { lampState, practiceResult, practiceView, REVIEW_CARD, sayResponse, NOTICE_NONE, NOTICE_AGREED } from "../test/samples";
import * as routinesApi from "../routinesApi";
import { ChildHome, dueFirst } from "./ChildHome";

vi.mock("../api");
vi.mock("../routinesApi");
vi.mock("../events", () => import("../test/fakeEvents"));

const ming = profile({ id: "c1", kind: "child", name: "小明", grade: 2 });
const jingyesi = material({
  id: "m1",
  title: "静夜思",
  author: "李白",
  dynasty: "唐",
  grade: 1,
  body: "床前明月光，\n疑是地上霜。\n举头望明月，\n低头思故乡。",
});
const twinkle = material({
  id: "m2",
  lang: "en",
  title: "Twinkle, Twinkle, Little Star",
  body: "\nTwinkle, twinkle, little star,\nHow I wonder what you are!",
});

const calls = () => vi.mocked(api.materialsList).mock.calls.map((c) => c[0] as MaterialFilter);
const lastCall = () => calls()[calls().length - 1];

describe("child home: the library", () => {
  beforeEach(() => {
    resetEvents();
    vi.mocked(api.materialsList).mockResolvedValue([jingyesi, twinkle]);
    vi.mocked(api.reviewsDue).mockResolvedValue([]);
    vi.mocked(api.practiceCurrent).mockResolvedValue(null);
    vi.mocked(api.lampStatus).mockResolvedValue(null);
    vi.mocked(api.practiceStart).mockImplementation(async (_p, materialId) =>
      practiceView({ material: materialId === "m2" ? twinkle : jingyesi }),
    );
    vi.mocked(api.practiceLeave).mockResolvedValue(null);
    vi.mocked(api.planToday).mockResolvedValue({ profile_id: "c1", day: "2026-03-02", tasks: [], done: 0, total: 0 });
  });

  it("loads everything first and renders a card per material", async () => {
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    const cards = await screen.findAllByTestId("material-card");
    expect(calls()[0]).toEqual({ lang: null, grade: null, search: null });
    expect(cards.map((c) => [c.dataset.title, c.dataset.lang])).toEqual([
      ["静夜思", "zh"],
      ["Twinkle, Twinkle, Little Star", "en"],
    ]);
    const first = within(cards[0]);
    expect(first.getByText("李白（唐）")).toBeInTheDocument();
    expect(first.getByText("床前明月光，")).toBeInTheDocument();
    expect(first.queryByText(/疑是地上霜/)).not.toBeInTheDocument();
    expect(within(cards[1]).getByText("Twinkle, twinkle, little star,")).toBeInTheDocument();
    expect(screen.getByTestId("child-home")).toHaveTextContent("小明");
  });

  it("passes the language and grade filters to the api and shows what comes back", async () => {
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await screen.findAllByTestId("material-card");

    vi.mocked(api.materialsList).mockResolvedValue([twinkle]);
    await user.click(screen.getByTestId("filter-lang-en"));
    await waitFor(() => expect(lastCall()).toEqual({ lang: "en", grade: null, search: null }));
    await waitFor(() => expect(screen.getAllByTestId("material-card")).toHaveLength(1));
    expect(screen.getByTestId("material-card")).toHaveAttribute("data-title", "Twinkle, Twinkle, Little Star");
    expect(screen.getByTestId("filter-lang-en")).toHaveAttribute("aria-pressed", "true");

    vi.mocked(api.materialsList).mockResolvedValue([]);
    await user.selectOptions(screen.getByTestId("filter-grade"), "3");
    await waitFor(() => expect(lastCall()).toEqual({ lang: "en", grade: 3, search: null }));
    expect(await screen.findByText("这里还没有内容，换个条件试试吧。")).toBeInTheDocument();
    expect(screen.queryByTestId("material-card")).not.toBeInTheDocument();

    vi.mocked(api.materialsList).mockResolvedValue([jingyesi]);
    await user.click(screen.getByTestId("filter-lang-zh"));
    await waitFor(() => expect(lastCall()).toEqual({ lang: "zh", grade: 3, search: null }));
    await user.click(screen.getByTestId("filter-lang-all"));
    await user.selectOptions(screen.getByTestId("filter-grade"), "");
    await waitFor(() => expect(lastCall()).toEqual({ lang: null, grade: null, search: null }));
  });

  it("searches through the api, debounced", async () => {
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await screen.findAllByTestId("material-card");

    vi.mocked(api.materialsList).mockResolvedValue([jingyesi]);
    await user.type(screen.getByTestId("library-search"), "明月");
    // Nothing is sent for the keystrokes themselves...
    expect(calls().filter((f) => f.search)).toHaveLength(0);
    // ...only once typing has paused.
    await waitFor(() => expect(lastCall()).toEqual({ lang: null, grade: null, search: "明月" }));
    expect(calls().filter((f) => f.search)).toHaveLength(1);
    await waitFor(() => expect(screen.getAllByTestId("material-card")).toHaveLength(1));
  });

  it("opens a material for practice, with the full text, and comes back", async () => {
    const user = userEvent.setup();
    const onExit = vi.fn();
    renderWithI18n(<ChildHome profile={ming} onExit={onExit} />);
    const [card] = await screen.findAllByTestId("material-card");
    await user.click(card);

    expect(screen.getByTestId("practice-screen")).toBeInTheDocument();
    await waitFor(() => expect(api.practiceStart).toHaveBeenCalledWith("c1", "m1", "voice"));
    const body = screen.getByTestId("material-detail-body");
    expect(body.textContent).toBe(jingyesi.body);
    expect(screen.getByTestId("material-detail-title")).toHaveTextContent("静夜思");
    expect(screen.queryByTestId("material-card")).not.toBeInTheDocument();

    await user.click(screen.getByTestId("detail-back"));
    expect(await screen.findAllByTestId("material-card")).toHaveLength(2);
    expect(api.practiceLeave).toHaveBeenCalledWith("p1");
    expect(onExit).not.toHaveBeenCalled();

    // The header's back button also goes from an open text back to the library.
    await user.click(screen.getAllByTestId("material-card")[1]);
    expect(screen.getByTestId("material-detail-title")).toHaveTextContent("Twinkle");
    await user.click(screen.getByTestId("back-button"));
    expect(await screen.findAllByTestId("material-card")).toHaveLength(2);
    expect(onExit).not.toHaveBeenCalled();

    await user.click(screen.getByTestId("back-button"));
    expect(onExit).toHaveBeenCalledTimes(1);
  });

  it("keeps a Chinese poem's byline in Chinese punctuation in the English UI", async () => {
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />, "en");
    const [card] = await screen.findAllByTestId("material-card");
    expect(within(card).getByText("李白（唐）")).toBeInTheDocument();
    expect(within(card).getByText("Grade 1")).toBeInTheDocument();
    expect(screen.getByText("Hi 小明! What shall we read today?")).toBeInTheDocument();
  });

  it("shows the api's error", async () => {
    vi.mocked(api.materialsList).mockRejectedValue("the library could not be read");
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("the library could not be read");
  });

  it("puts the reviews due first, most overdue first, and opens one for practice", async () => {
    vi.mocked(api.reviewsDue).mockResolvedValue([
      { material_id: "m1", title: "静夜思", lang: "zh", next_review_at: "2026-03-05T00:00:00Z", overdue_days: 0, ...REVIEW_CARD },
      { material_id: "m2", title: "Twinkle, Twinkle, Little Star", lang: "en", next_review_at: "2026-03-02T00:00:00Z", overdue_days: 3, ...REVIEW_CARD },
    ]);
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    const due = await screen.findAllByTestId("due-review");
    expect(api.reviewsDue).toHaveBeenCalledWith("c1");
    expect(due.map((d) => d.dataset.materialId)).toEqual(["m2", "m1"]);
    expect(due[0]).toHaveTextContent("晚了 3 天");
    expect(due[1]).toHaveTextContent("今天");
    // The strip comes before the library.
    const [firstCard] = await screen.findAllByTestId("material-card");
    expect(due[0].compareDocumentPosition(firstCard) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();

    await user.click(due[0]);
    await waitFor(() => expect(api.practiceStart).toHaveBeenCalledWith("c1", "m2", "voice"));
    expect(await screen.findByTestId("material-detail-title")).toHaveTextContent("Twinkle");
  });

  it("lists the materials due for review first in the library, marked, without asking twice", async () => {
    vi.mocked(api.reviewsDue).mockResolvedValue([
      { material_id: "m2", title: "Twinkle, Twinkle, Little Star", lang: "en", next_review_at: "2026-03-05T00:00:00Z", overdue_days: 0, ...REVIEW_CARD },
    ]);
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await waitFor(() => expect(screen.getAllByTestId("material-card")[0]).toHaveAttribute("data-title", "Twinkle, Twinkle, Little Star"));
    const cards = screen.getAllByTestId("material-card");
    expect(cards.map((c) => c.dataset.due ?? "no")).toEqual(["true", "no"]);
    expect(within(cards[0]).getByTestId("material-due")).toHaveTextContent("该复习了");
    expect(within(cards[1]).queryByTestId("material-due")).not.toBeInTheDocument();
    expect(api.reviewsDue).toHaveBeenCalledTimes(1);
  });

  it("refreshes the due reviews when the core says the count changed", async () => {
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await waitFor(() => expect(api.reviewsDue).toHaveBeenCalledTimes(1));
    expect(screen.queryByTestId("due-review")).not.toBeInTheDocument();
    vi.mocked(api.reviewsDue).mockResolvedValue([
      { material_id: "m1", title: "静夜思", lang: "zh", next_review_at: "2026-03-05T00:00:00Z", overdue_days: 0, ...REVIEW_CARD },
    ]);
    emit("reviews://due", { profile_id: "someone-else", count: 1 });
    emit("reviews://due", { profile_id: "c1", count: 1 });
    expect(await screen.findByTestId("due-review")).toHaveAttribute("data-material-id", "m1");
    expect(api.reviewsDue).toHaveBeenCalledTimes(2);
  });

  it("resumes a practice left open when the app closed", async () => {
    vi.mocked(api.practiceCurrent).mockResolvedValue(
      practiceView({
        attempts: 1,
        state: { state: "feedback", attempt_id: "a1", accuracy: 70, passed: false },
        last_result: practiceResult(),
      }),
    );
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    expect(await screen.findByTestId("result-screen")).toBeInTheDocument();
    expect(api.practiceCurrent).toHaveBeenCalledWith("c1");
    expect(api.practiceStart).not.toHaveBeenCalled();
  });

  it("opens the chat and comes back", async () => {
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: null, base_url: null, has_key: false, notice: NOTICE_NONE });
    vi.mocked(api.chatThreads).mockResolvedValue([]);
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await user.click(screen.getByTestId("open-chat"));
    expect(screen.getByTestId("chat-screen")).toBeInTheDocument();
    expect(await screen.findByTestId("chat-not-configured")).toHaveTextContent("请爸爸妈妈在家长区设置 AI 助手");
    await user.click(screen.getByTestId("back-button"));
    expect(await screen.findAllByTestId("material-card")).toHaveLength(2);
  });

  it("what the child tells Deskmate goes through the one entry: a poem named opens its practice", async () => {
    const view = practiceView({ id: "p9" });
    vi.mocked(api.say).mockResolvedValue(sayResponse({
      trace_id: "t1",
      scene: "recite",
      intent: "recite",
      confidence: "high",
      decision: { decision: "switch", to: "recite", material_id: view.material.id },
      reason: "another scene, clearly asked for",
      text_zh: "我们来背《静夜思》吧！准备好了就按录音键。",
      text_en: "Let's recite 静夜思!",
      material: { id: view.material.id, title: view.material.title },
      practice: view,
    }));
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await screen.findAllByTestId("material-card");
    await user.type(screen.getByTestId("say-input"), "我要背静夜思");
    await user.click(screen.getByTestId("say-send"));
    expect(api.say).toHaveBeenCalledWith("c1", "我要背静夜思");
    // The practice the entry opened is shown as it is, not started again.
    expect(await screen.findByTestId("practice-screen")).toBeInTheDocument();
    expect(api.practiceStart).not.toHaveBeenCalled();
  });

  it("a question about going elsewhere is answered with the screen's yes button, through the one entry", async () => {
    const view = practiceView({ id: "p11" });
    const material = { id: view.material.id, title: view.material.title };
    vi.mocked(api.say).mockResolvedValue(
      sayResponse({
        material,
        confidence: "mid",
        trace_id: "t5",
        scene: "chat",
        intent: "recite",
        decision: { decision: "ask_switch", to: "recite", material_id: view.material.id },
        reason: "another scene, not clearly asked for: ask first",
        suggestions: [
          { label_zh: "好的", label_en: "Yes", button: "screen:yes", says: null },
          { label_zh: "不用了", label_en: "No, thanks", button: "screen:no", says: null },
        ],
        text_zh: "要去背《静夜思》吗？",
        text_en: "Shall we recite 静夜思?",
      }),
    );
    vi.mocked(api.sayButton).mockResolvedValue(
      sayResponse({
        material,
        trace_id: "t6",
        scene: "recite",
        intent: "continue_current",
        decision: { decision: "switch", to: "recite", material_id: view.material.id },
        reason: "the switch asked about was accepted",
        text_zh: "我们来背《静夜思》吧！",
        text_en: "Let's recite 静夜思!",
        practice: view,
      }),
    );
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await screen.findAllByTestId("material-card");
    await user.type(screen.getByTestId("say-input"), "静夜思");
    await user.click(screen.getByTestId("say-send"));
    expect(await screen.findByTestId("say-no")).toBeInTheDocument();
    await user.click(screen.getByTestId("say-yes"));
    expect(api.sayButton).toHaveBeenCalledWith("c1", "screen:yes");
    expect(await screen.findByTestId("practice-screen")).toBeInTheDocument();
  });

  it("the talk button sends what the child said through the one entry: the poem named opens its practice", async () => {
    const view = practiceView({ id: "p10" });
    vi.mocked(api.talk).mockImplementation(async (_profile, onEvent) => {
      onEvent({ kind: "thinking" });
      return sayResponse({
        trace_id: "t3",
        scene: "recite",
        intent: "recite",
        confidence: "high",
        decision: { decision: "switch", to: "recite", material_id: view.material.id },
        reason: "another scene, clearly asked for",
        text_zh: "我们来背《静夜思》吧！",
        text_en: "Let's recite 静夜思!",
        material: { id: view.material.id, title: view.material.title },
        practice: view,
        heard: "我要背静夜思",
        timings: { speech_us: 800, route_us: 1, decide_us: 1, act_us: 1, total_us: 803 },
      });
    });
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await screen.findAllByTestId("material-card");
    await user.click(screen.getByTestId("talk-button"));
    expect(api.talk).toHaveBeenCalledWith("c1", expect.any(Function));
    expect(await screen.findByTestId("practice-screen")).toBeInTheDocument();
    expect(api.practiceStart).not.toHaveBeenCalled();
  });

  it("a reply that needs the companion is said, with the way to the chat", async () => {
    vi.mocked(api.say).mockResolvedValue(sayResponse({
      trace_id: "t2",
      scene: "chat",
      intent: "chat",
      confidence: "low",
      decision: { decision: "continue" },
      reason: "already in that scene",
      text_zh: "聊天和作业辅导要用 AI 伙伴，需要家长先在设置里配好模型。",
      text_en: "Chat needs a model.",
      needs_model: true,
    }));
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: null, base_url: null, has_key: false, notice: NOTICE_NONE });
    vi.mocked(api.chatThreads).mockResolvedValue([]);
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await screen.findAllByTestId("material-card");
    await user.type(screen.getByTestId("say-input"), "恐龙是怎么灭绝的");
    await user.click(screen.getByTestId("say-send"));
    expect(await screen.findByTestId("say-reply")).toHaveTextContent("需要家长先在设置里配好模型");
    await user.click(screen.getByTestId("say-open-chat"));
    expect(screen.getByTestId("chat-screen")).toBeInTheDocument();
  });

  it("a request handed to the companion opens the chat and is answered there, under its trace", async () => {
    vi.mocked(api.say).mockResolvedValue(sayResponse({
      trace_id: "t3",
      scene: "chat",
      intent: "chat",
      confidence: "high",
      decision: { decision: "continue" },
      reason: "already in that scene",
      text_zh: "好的，我来想一想。",
      text_en: "OK, let me think.",
      needs_model: true,
      handoff: true,
    }));
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: "openai:gpt-4o-mini", base_url: null, has_key: true, notice: NOTICE_AGREED });
    vi.mocked(api.chatThreads).mockResolvedValue([]);
    vi.mocked(api.chatHandoff).mockResolvedValue({ thread_id: "th9", run_id: "r9" });
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await screen.findAllByTestId("material-card");
    await user.type(screen.getByTestId("say-input"), "月亮上有兔子吗");
    await user.click(screen.getByTestId("say-send"));
    expect(await screen.findByTestId("chat-screen")).toBeInTheDocument();
    await waitFor(() => expect(api.chatHandoff).toHaveBeenCalledTimes(1));
    expect(api.chatHandoff).toHaveBeenCalledWith("c1", "t3", "月亮上有兔子吗", expect.any(Function));
    expect(screen.getByText("月亮上有兔子吗")).toBeInTheDocument();
    expect(api.chatSend).not.toHaveBeenCalled();
  });

  it("shows today's plan with progress; a task not done opens its recitation", async () => {
    vi.mocked(api.planToday).mockResolvedValue({
      profile_id: "c1",
      day: "2026-03-02",
      done: 1,
      total: 3,
      tasks: [
        { kind: "review", material_id: "m1", title: "静夜思", done: true, count: null, target: null, text_zh: "复习《静夜思》", text_en: "Review 静夜思" },
        { kind: "new", material_id: "m2", title: "Twinkle", done: false, count: null, target: null, text_zh: "学一首新的：《Twinkle》", text_en: "Learn a new one: Twinkle" },
        { kind: "weekly_reviews", material_id: null, title: null, done: false, count: 1, target: 3, text_zh: "本周复习 1/3 次", text_en: "Reviews this week 1/3" },
      ],
    });
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    const card = await screen.findByTestId("plan-card");
    expect(api.planToday).toHaveBeenCalledWith("c1");
    expect(within(card).getByTestId("plan-progress")).toHaveTextContent("完成 1/3");
    expect(within(card).getByRole("progressbar")).toHaveAttribute("aria-valuenow", "33");
    const tasks = within(card).getAllByTestId("plan-task");
    expect(tasks.map((t) => [t.dataset.kind, t.dataset.done, t.textContent])).toEqual([
      ["review", "true", "✓ 复习《静夜思》"],
      ["new", "false", "○ 学一首新的：《Twinkle》"],
      ["weekly_reviews", "false", "○ 本周复习 1/3 次"],
    ]);
    // Done, or nothing to open: not a button.
    expect(tasks[0].tagName).toBe("SPAN");
    expect(tasks[2].tagName).toBe("SPAN");
    await user.click(tasks[1]);
    expect(await screen.findByTestId("practice-screen")).toBeInTheDocument();
    expect(api.practiceStart).toHaveBeenCalledWith("c1", "m2", expect.anything());
  });

  it("a routine on the plan runs; its recitation opens practice, and back from it the run goes on", async () => {
    vi.mocked(api.planToday).mockResolvedValue({
      profile_id: "c1",
      day: "2026-03-02",
      done: 0,
      total: 1,
      tasks: [
        { kind: "routine", material_id: null, title: "evening", routine: "evening", done: false, count: null, target: null, text_zh: "日常安排：evening", text_en: "Routine: evening" },
      ],
    });
    vi.mocked(routinesApi.routineGet).mockResolvedValue({
      name: "evening",
      description: "",
      nodes: [
        { id: "start", type: "start", next: "poem" },
        { id: "poem", type: "recite", material: "静夜思", next: "end" },
        { id: "end", type: "end" },
      ],
    });
    vi.mocked(routinesApi.routineRun).mockImplementation(async (_n, _c, _i, onEvent) => {
      onEvent({ type: "waiting", run_id: "r1", node: "poem", reason: "waiting for 静夜思" });
      return { id: "r1", routine: "evening", input: "", status: "waiting", at: "poem", steps: [] };
    });
    vi.mocked(routinesApi.routineResume).mockResolvedValue({ id: "r1", routine: "evening", input: "", status: "finished", steps: [] });
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    const [task] = within(await screen.findByTestId("plan-card")).getAllByTestId("plan-task");
    expect(task.tagName).toBe("BUTTON");
    await user.click(task);
    expect(await screen.findByTestId("routine-run-screen")).toBeInTheDocument();
    await user.click(await screen.findByTestId("routine-recite"));
    expect(await screen.findByTestId("practice-screen")).toBeInTheDocument();
    expect(api.practiceStart).toHaveBeenCalledWith("c1", jingyesi.id, expect.anything());
    await user.click(screen.getByTestId("back-button"));
    expect(await screen.findByTestId("routine-done")).toBeInTheDocument();
    expect(routinesApi.routineResume).toHaveBeenCalledWith("r1", expect.any(Function));
    expect(routinesApi.routineRun).toHaveBeenCalledTimes(1);
  });

  it("the scenario cards speak through the one entry; the plan the entry answers with is shown", async () => {
    vi.mocked(api.say).mockResolvedValue(sayResponse({
      trace_id: "t3",
      scene: "plan",
      intent: "plan",
      confidence: "high",
      decision: { decision: "switch", to: "plan", material_id: null },
      reason: "another scene, clearly asked for",
      text_zh: "今天的计划（完成 0/1）：○复习《静夜思》。说“下一个”开始。",
      text_en: "Today's plan (0 of 1 done)",
      due: ["静夜思"],
      plan: {
        profile_id: "c1",
        day: "2026-03-02",
        done: 0,
        total: 1,
        tasks: [{ kind: "review", material_id: "m1", title: "静夜思", done: false, count: null, target: null, text_zh: "复习《静夜思》", text_en: "Review 静夜思" }],
      },
    }));
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: null, base_url: null, has_key: false, notice: NOTICE_NONE });
    vi.mocked(api.chatThreads).mockResolvedValue([]);
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    expect(await screen.findByTestId("plan-empty")).toHaveTextContent("今天没有安排任务");
    expect(screen.getAllByRole("button", { name: /背古诗|今天的计划|问作业|和同桌聊天/ })).toHaveLength(4);
    await user.click(screen.getByTestId("scenario-plan"));
    expect(api.say).toHaveBeenCalledWith("c1", "今天做什么");
    expect(await screen.findByTestId("say-reply")).toHaveAttribute("data-scene", "plan");
    expect(await screen.findByTestId("plan-progress")).toHaveTextContent("完成 0/1");
    await user.click(screen.getByTestId("scenario-recite"));
    expect(api.say).toHaveBeenLastCalledWith("c1", "我要背诗");
    await user.click(screen.getByTestId("scenario-homework"));
    expect(api.say).toHaveBeenLastCalledWith("c1", "我有作业要问");
    await user.click(screen.getByTestId("scenario-chat"));
    expect(screen.getByTestId("chat-screen")).toBeInTheDocument();
    expect(api.say).toHaveBeenCalledTimes(3);
  });

  it("says in the plan card when today's plan cannot be read", async () => {
    vi.mocked(api.planToday).mockRejectedValue("the database is locked");
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    expect(await screen.findByTestId("plan-error")).toHaveTextContent("今天的计划没能读取");
  });

  it("shows the lamp drawer only while a lamp is attached", async () => {
    const user = userEvent.setup();
    renderWithI18n(<ChildHome profile={ming} onExit={vi.fn()} />);
    await screen.findAllByTestId("material-card");
    expect(screen.queryByTestId("lamp-dock-toggle")).not.toBeInTheDocument();
    emit("lamp://notice", { kind: "state", state: lampState({ expression: "encourage" }), at_unix_ms: 1 });
    await user.click(screen.getByTestId("lamp-dock-toggle"));
    expect(screen.getByTestId("lamp-face")).toHaveAttribute("data-expression", "encourage");
  });
});

describe("dueFirst", () => {
  const m = (id: string) => material({ id, title: id, body: id });
  const d = (id: string, overdue_days: number) => ({ material_id: id, title: id, lang: "zh", next_review_at: "", overdue_days, ...REVIEW_CARD });

  it("puts due materials first, most overdue first, and keeps the rest in order", () => {
    const list = [m("a"), m("b"), m("c"), m("d")];
    expect(dueFirst(list, [d("c", 0), d("d", 4)]).map((x) => x.id)).toEqual(["d", "c", "a", "b"]);
    expect(dueFirst(list, []).map((x) => x.id)).toEqual(["a", "b", "c", "d"]);
    // A due review of a material not in the (filtered) list changes nothing.
    expect(dueFirst(list, [d("zz", 9)]).map((x) => x.id)).toEqual(["a", "b", "c", "d"]);
  });
});
