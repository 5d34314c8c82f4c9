import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../api";
import * as family from "../familyApi";
import { check, material, profile, renderWithI18n } from "../test/helpers";
import { weeklyReport, NOTICE_NONE } from "../test/samples";
import { ParentHome } from "./ParentHome";

vi.mock("../api");
vi.mock("../familyApi");
vi.mock("../events", () => import("../test/fakeEvents"));

const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const ming = profile({ id: "c1", kind: "child", name: "小明", grade: 2 });
const status = { first_run: false, locale: "zh-CN" as const, data_dir: "/data/deskmate", schema_version: 1 };

function renderParent(onLock = vi.fn()) {
  renderWithI18n(<ParentHome profile={mum} status={status} onLock={onLock} />);
  return { user: userEvent.setup(), onLock };
}

describe("parent home", () => {
  beforeEach(() => {
    vi.mocked(api.profilesList).mockResolvedValue([mum, ming]);
    vi.mocked(api.doctor).mockResolvedValue([]);
    vi.mocked(api.localeSet).mockResolvedValue(null);
    vi.mocked(family.noticesList).mockResolvedValue([]);
  });

  it("counts the unread notices on the Usage & limits tab, read again when the tab changes", async () => {
    const unread = (id: string) => ({
      id,
      profile_id: "c1",
      kind: "quiet_hours" as const,
      day: "2026-11-27",
      detail: { from: "21:00", to: "07:00" },
      thread_id: null,
      created_at: "2026-11-27T13:00:00Z",
      read_at: null,
    });
    vi.mocked(family.noticesList).mockResolvedValue([unread("n1"), unread("n2")]);
    vi.mocked(family.usage).mockResolvedValue({ days: [], runs: [] });
    vi.mocked(family.limitsGet).mockResolvedValue({});
    const { user } = renderParent();
    const badge = await within(screen.getByTestId("tab-usage")).findByTestId("notices-unread");
    expect(badge).toHaveTextContent("2");
    expect(badge).toHaveAttribute("aria-label", "2 条未读提醒");
    expect(family.noticesList).toHaveBeenCalledWith(null, true);
    vi.mocked(family.noticesList).mockResolvedValue([]);
    await user.click(screen.getByTestId("tab-usage"));
    await waitFor(() => expect(screen.queryByTestId("notices-unread")).toBeNull());
  });

  it("lists the profiles and adds a child", async () => {
    const lan = profile({ id: "c2", kind: "child", name: "小兰", grade: 4 });
    vi.mocked(api.profilesAdd).mockResolvedValue(lan);
    const { user } = renderParent();
    expect(screen.getByTestId("tab-profiles")).toHaveAttribute("aria-selected", "true");
    const rows = await screen.findAllByTestId("profile-row");
    expect(rows.map((r) => r.dataset.name)).toEqual(["妈妈", "小明"]);

    vi.mocked(api.profilesList).mockResolvedValue([mum, ming, lan]);
    await user.type(screen.getByTestId("profile-name"), "小兰");
    await user.selectOptions(screen.getByTestId("profile-grade"), "4");
    await user.click(screen.getByTestId("profile-submit"));

    expect(api.profilesAdd).toHaveBeenCalledWith({ kind: "child", name: "小兰", grade: 4, locale: "zh-CN" });
    expect(await screen.findByTestId("profile-added")).toHaveTextContent("小兰");
    await waitFor(() => expect(screen.getAllByTestId("profile-row")).toHaveLength(3));
    expect(screen.getByTestId("profile-name")).toHaveValue("");
  });

  it("adds a parent with a PIN and shows the api's validation error", async () => {
    vi.mocked(api.profilesAdd).mockRejectedValue("name is too long (at most 20 characters)");
    const { user } = renderParent();
    await user.click(screen.getByTestId("profile-kind-parent"));
    expect(screen.queryByTestId("profile-grade")).not.toBeInTheDocument();
    await user.type(screen.getByTestId("profile-name"), "爸爸");
    await user.type(screen.getByTestId("profile-pin"), "5678");
    await user.type(screen.getByTestId("profile-pin2"), "5679");
    await user.click(screen.getByTestId("profile-submit"));
    expect(screen.getByText("两次输入的密码不一样。")).toBeInTheDocument();
    expect(api.profilesAdd).not.toHaveBeenCalled();

    await user.clear(screen.getByTestId("profile-pin2"));
    await user.type(screen.getByTestId("profile-pin2"), "5678");
    await user.click(screen.getByTestId("profile-submit"));
    expect(api.profilesAdd).toHaveBeenCalledWith({ kind: "parent", name: "爸爸", pin: "5678", locale: "zh-CN" });
    expect(await screen.findByTestId("profile-error")).toHaveTextContent("name is too long (at most 20 characters)");
    expect(screen.queryByTestId("profile-added")).not.toBeInTheDocument();
  });

  it("adds material and says so clearly", async () => {
    vi.mocked(api.materialsAdd).mockResolvedValue(
      material({ id: "m9", title: "春晓", body: "春眠不觉晓", source: "custom" }),
    );
    const { user } = renderParent();
    await user.click(screen.getByTestId("tab-materials"));
    await user.click(screen.getByTestId("material-submit"));
    expect(screen.getByText("请填写题目。")).toBeInTheDocument();
    expect(screen.getByText("请填写正文。")).toBeInTheDocument();
    expect(api.materialsAdd).not.toHaveBeenCalled();

    await user.type(screen.getByTestId("material-title-input"), "春晓");
    await user.type(screen.getByTestId("material-author"), "孟浩然");
    await user.selectOptions(screen.getByTestId("material-grade"), "1");
    await user.type(screen.getByTestId("material-body"), "春眠不觉晓，{Enter}处处闻啼鸟。");
    await user.click(screen.getByTestId("material-submit"));

    expect(api.materialsAdd).toHaveBeenCalledWith(
      { lang: "zh", title: "春晓", body: "春眠不觉晓，\n处处闻啼鸟。", author: "孟浩然", grade: 1 },
      "p1",
    );
    expect(await screen.findByTestId("material-saved")).toHaveTextContent("已保存《春晓》");
    expect(screen.getByTestId("material-title-input")).toHaveValue("");
  });

  it("shows the api's error when material can't be added", async () => {
    vi.mocked(api.materialsAdd).mockRejectedValue("a material titled 春晓 already exists");
    const { user } = renderParent();
    await user.click(screen.getByTestId("tab-materials"));
    await user.type(screen.getByTestId("material-title-input"), "Spring");
    await user.selectOptions(screen.getByTestId("material-lang"), "en");
    await user.type(screen.getByTestId("material-body"), "Spring is here.");
    await user.click(screen.getByTestId("material-submit"));
    expect(api.materialsAdd).toHaveBeenCalledWith(
      { lang: "en", title: "Spring", body: "Spring is here.", author: null, grade: null },
      "p1",
    );
    expect(await screen.findByTestId("material-error")).toHaveTextContent("a material titled 春晓 already exists");
    expect(screen.getByTestId("material-title-input")).toHaveValue("Spring");
  });

  it("settings: system check lists the doctor's checks; language switch saves", async () => {
    vi.mocked(api.doctor).mockResolvedValue([
      check({ name: "数据库", status: "ok", detail: "schema v1" }),
      check({ name: "麦克风", status: "fail", detail: "no input device", fix: "plug in a microphone" }),
    ]);
    const { user } = renderParent();
    await user.click(screen.getByTestId("tab-settings"));
    const items = await screen.findAllByTestId("doctor-check");
    expect(items.map((i) => i.dataset.status)).toEqual(["ok", "fail"]);
    expect(within(items[1]).getByText("no input device")).toBeInTheDocument();
    expect(within(items[1]).getByText("plug in a microphone")).toBeInTheDocument();
    expect(within(items[1]).getByText("有问题")).toBeInTheDocument();
    expect(screen.getByTestId("data-dir")).toHaveTextContent("/data/deskmate");

    await user.click(screen.getByTestId("doctor-refresh"));
    await waitFor(() => expect(api.doctor).toHaveBeenCalledTimes(2));

    await user.click(screen.getByTestId("settings-locale-en"));
    expect(api.localeSet).toHaveBeenCalledWith("en");
    expect(screen.getByTestId("tab-settings")).toHaveTextContent("Settings");
  });

  it("the lock button leaves the parent area", async () => {
    const { user, onLock } = renderParent();
    await user.click(screen.getByTestId("lock-button"));
    expect(onLock).toHaveBeenCalledTimes(1);
  });

  it("tab order and the reports tab", async () => {
    vi.mocked(api.report).mockResolvedValue(weeklyReport);
    vi.mocked(api.reviewsDue).mockResolvedValue([]);
    const { user } = renderParent();
    expect(screen.getAllByRole("tab").map((t) => t.dataset.testid)).toEqual([
      "tab-profiles",
      "tab-reports",
      "tab-ask",
      "tab-usage",
      "tab-activity",
      "tab-goals",
      "tab-materials",
      "tab-knowledge",
      "tab-memories",
      "tab-mcp",
      "tab-routines",
      "tab-settings",
    ]);
    await user.click(screen.getByTestId("tab-reports"));
    expect(screen.getByTestId("report-screen")).toBeInTheDocument();
    await waitFor(() => expect(api.report).toHaveBeenCalledWith("c1", "daily", expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/)));
    expect(await screen.findByTestId("report-attempts")).toHaveTextContent("12");
  });

  it("settings has the AI provider, models and lamp sections", async () => {
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: null, base_url: null, has_key: false, notice: NOTICE_NONE });
    vi.mocked(api.modelsStatus).mockResolvedValue([]);
    vi.mocked(api.lampStatus).mockResolvedValue(null);
    const { user } = renderParent();
    await user.click(screen.getByTestId("tab-settings"));
    expect(screen.getByTestId("llm-provider")).toBeInTheDocument();
    expect(screen.getByTestId("models-fetch")).toBeInTheDocument();
    expect(screen.getByTestId("lamp-connect")).toBeInTheDocument();
    expect(screen.getByTestId("doctor")).toBeInTheDocument();
  });

  it("opens the chat; without a model it links to Settings", async () => {
    vi.mocked(api.llmSettingsGet).mockResolvedValue({ model: null, base_url: null, has_key: false, notice: NOTICE_NONE });
    vi.mocked(api.chatThreads).mockResolvedValue([]);
    const { user } = renderParent();
    await user.click(screen.getByTestId("open-chat"));
    expect(screen.getByTestId("chat-screen")).toBeInTheDocument();
    expect(screen.getByTestId("parent-home")).toBeInTheDocument();
    await user.click(await screen.findByTestId("chat-open-settings"));
    expect(screen.queryByTestId("chat-screen")).not.toBeInTheDocument();
    expect(screen.getByTestId("tab-settings")).toHaveAttribute("aria-selected", "true");
    expect(api.chatThreads).toHaveBeenCalledWith("p1");
  });
});
