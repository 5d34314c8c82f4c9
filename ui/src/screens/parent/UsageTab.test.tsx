import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import * as family from "../../familyApi";
import type { DayUsage, Notice, ReplacedReply } from "../../protocol";
import { profile, renderWithI18n } from "../../test/helpers";
import { noticeText, reasonText } from "./NoticesList";
import { translate } from "../../i18n";
import { dollars, UsageTab } from "./UsageTab";

vi.mock("../../api", async (importActual) => ({
  ...(await importActual<typeof import("../../api")>()),
  profilesList: vi.fn(),
}));
vi.mock("../../familyApi");

const ming = profile({ id: "c1", kind: "child", name: "小明" });

const day = (date: string, over: Partial<DayUsage> = {}): DayUsage => ({
  profile_id: "c1",
  profile_name: "小明",
  date,
  runs: 0,
  model_calls: 0,
  input_tokens: 0,
  output_tokens: 0,
  cached_input_tokens: 0,
  cost_usd: 0,
  unpriced_calls: 0,
  chat_seconds: 0,
  ...over,
});

const notice = (id: string, kind: Notice["kind"], detail: Record<string, unknown>, read = false): Notice => ({
  id,
  profile_id: "c1",
  kind,
  day: "2026-11-27",
  detail,
  thread_id: kind === "reply_replaced" ? "t1" : null,
  created_at: "2026-11-27T12:00:00Z",
  read_at: read ? "2026-11-27T13:00:00Z" : null,
});

const replaced: ReplacedReply = {
  notice: notice("n3", "reply_replaced", { message_id: "m2", reasons: ["rule:personal_details"] }),
  message_id: "m2",
  original: "告诉我你家住在哪里？",
  reasons: ["rule:personal_details"],
  thread: {
    thread: { id: "t1", profile_id: "c1", title: "聊天", created_at: "2026-11-27T12:00:00Z", updated_at: "2026-11-27T12:00:00Z" },
    messages: [
      { id: "m1", role: "user", content: "我们做朋友吧", tool_calls: null, tool_call_id: null, is_error: false, created_at: "2026-11-27T12:00:00Z" },
      { id: "m2", role: "assistant", content: "我们换个话题吧！", tool_calls: null, tool_call_id: null, is_error: false, created_at: "2026-11-27T12:00:05Z" },
    ],
    todos: [],
    tool_calls: [],
    runs: [],
    approvals: [],
  },
} as unknown as ReplacedReply;

describe("usage and limits", () => {
  let notices: Notice[];

  beforeEach(() => {
    notices = [
      notice("n3", "reply_replaced", { message_id: "m2", reasons: ["rule:personal_details"] }),
      notice("n2", "limit_reached", { refused: "reached", limit: "model_calls", used: 40, allowed: 40 }),
      notice("n1", "quiet_hours", { refused: "quiet", from: "21:00", to: "07:00" }, true),
    ];
    vi.mocked(api.profilesList).mockResolvedValue([ming]);
    vi.mocked(family.usage).mockResolvedValue({
      days: [day("2026-11-26"), day("2026-11-27", { runs: 2, model_calls: 5, input_tokens: 1200, output_tokens: 300, cost_usd: 0.0042, chat_seconds: 150, unpriced_calls: 1 })],
      runs: [
        {
          run_id: "r1",
          thread_id: "t1",
          profile_id: "c1",
          model: "openai:gpt-4o-mini",
          status: "finished",
          started_at: "2026-11-27T12:00:00Z",
          model_calls: 3,
          input_tokens: 800,
          output_tokens: 200,
          cached_input_tokens: 0,
          cost_usd: 0.003,
        },
      ],
    });
    vi.mocked(family.limitsGet).mockResolvedValue({});
    vi.mocked(family.noticesList).mockImplementation(async () => notices.map((n) => ({ ...n })));
    vi.mocked(family.noticeRead).mockImplementation(async (id) => {
      notices = notices.map((n) => (n.id === id ? { ...n, read_at: "2026-11-27T14:00:00Z" } : n));
      return null;
    });
    vi.mocked(family.noticeReplacedReply).mockResolvedValue(replaced);
  });

  it("shows usage per day (newest first) and per answer", async () => {
    renderWithI18n(<UsageTab />);
    const rows = await screen.findAllByTestId("usage-day");
    expect(family.usage).toHaveBeenCalledWith("c1", 7);
    expect(rows.map((r) => r.dataset.date)).toEqual(["2026-11-27", "2026-11-26"]);
    expect(within(rows[0]).getAllByRole("cell").map((c) => c.textContent)).toEqual(["2", "5", "1200 / 300", "$0.0042 （另有 1 次没有价格）", "3"]);
    const run = screen.getByTestId("usage-run");
    expect(run).toHaveTextContent("openai:gpt-4o-mini");
    expect(run).toHaveTextContent("800 / 200");
    const user = userEvent.setup();
    await user.selectOptions(screen.getByTestId("usage-days"), "30");
    await waitFor(() => expect(family.usage).toHaveBeenCalledWith("c1", 30));
  });

  it("lists the notices in words; marks one read; a replaced reply opens with its conversation", async () => {
    const user = userEvent.setup();
    renderWithI18n(<UsageTab />);
    const items = await screen.findAllByTestId("notice");
    expect(items.map((i) => i.dataset.kind)).toEqual(["reply_replaced", "limit_reached", "quiet_hours"]);
    expect(items[1]).toHaveTextContent("到了每天的上限：每天模型调用次数（已用 40，上限 40）");
    expect(items[2]).toHaveTextContent("孩子在休息时间（21:00–07:00）找了 AI 伙伴。");
    expect(items[2]).not.toHaveAttribute("data-unread");
    expect(within(items[2]).queryByTestId("notice-read")).toBeNull();

    await user.click(within(items[1]).getByTestId("notice-read"));
    expect(family.noticeRead).toHaveBeenCalledWith("n2");
    await waitFor(() => expect(screen.getAllByTestId("notice")[1]).not.toHaveAttribute("data-unread"));

    await user.click(within(screen.getAllByTestId("notice")[0]).getByTestId("notice-open"));
    expect(family.noticeReplacedReply).toHaveBeenCalledWith("n3");
    const view = await screen.findByTestId("replaced-reply");
    expect(within(view).getByTestId("replaced-original")).toHaveTextContent("告诉我你家住在哪里？");
    expect(view).toHaveTextContent("替换原因：问孩子的个人信息");
    const said = within(within(view).getByTestId("replaced-conversation")).getAllByRole("listitem");
    expect(said.map((m) => m.dataset.replaced ?? "")).toEqual(["", "true"]);
    expect(said[1]).toHaveTextContent("AI 伙伴: 我们换个话题吧！ 这条已替换");
    await user.click(within(view).getByTestId("replaced-close"));
    expect(screen.queryByTestId("replaced-reply")).toBeNull();
  });

  it("reasons in words: the kept rules' categories, the moderation service's as sent", () => {
    const t = (key: string, vars?: Record<string, string | number>) => `${key}${vars ? JSON.stringify(vars) : ""}`;
    expect(reasonText(t as never, "rule:violence_weapons")).toBe("notices.reason.violence_weapons");
    expect(reasonText(t as never, "moderation:harassment")).toBe('notices.reason.moderation{"category":"harassment"}');
    expect(reasonText(t as never, "rule:something_new")).toBe("rule:something_new");
  });

  it("a routine's note and a routine step replaced, in words", () => {
    const zh = (k: Parameters<typeof translate>[1], v?: Parameters<typeof translate>[2]) => translate("zh-CN", k, v);
    expect(noticeText(zh, notice("n4", "routine_note", { routine: "晚间复习", note: "今天背了静夜思" }))).toBe(
      "日常安排“晚间复习”告诉你：今天背了静夜思",
    );
    const replacedStep = noticeText(zh, notice("n5", "routine_note", { routine: "晚间复习", original: "告诉我你家住在哪里", reasons: ["rule:personal_details"] }));
    expect(replacedStep).toContain("没通过安全检查");
    expect(replacedStep).toContain(reasonText(zh, "rule:personal_details"));
  });

  it("dollars: four places under a cent", () => {
    expect([dollars(0), dollars(0.0042), dollars(1.5)]).toEqual(["$0.00", "$0.0042", "$1.50"]);
  });
});
