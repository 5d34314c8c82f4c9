import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import type { Goal, GoalKind, Plan } from "../../api";
import { profile, renderWithI18n } from "../../test/helpers";
import { GoalsTab } from "./GoalsTab";

vi.mock("../../api");
vi.mock("../../events", () => import("../../test/fakeEvents"));

const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const ming = profile({ id: "c1", kind: "child", name: "小明" });

const goal = (kind: GoalKind, target: number): Goal => ({
  id: `g-${kind}`,
  profile_id: "c1",
  kind,
  target,
  created_at: "2026-03-02T00:00:00Z",
  updated_at: "2026-03-02T00:00:00Z",
});

const plan = (tasks: Plan["tasks"]): Plan => ({
  profile_id: "c1",
  day: "2026-03-02",
  tasks,
  done: 0,
  total: tasks.length,
});

const NEW_TASK: Plan["tasks"][number] = {
  kind: "new",
  material_id: "m1",
  title: "静夜思",
  done: false,
  count: null,
  target: null,
  text_zh: "学一首新的：静夜思",
  text_en: "Learn a new one: 静夜思",
};

describe("goals", () => {
  // The goals as the core holds them: set and remove change them.
  let held: Goal[];

  beforeEach(() => {
    held = [];
    vi.mocked(api.profilesList).mockResolvedValue([mum, ming]);
    vi.mocked(api.goalsList).mockImplementation(async () => [...held]);
    vi.mocked(api.planToday).mockImplementation(async () =>
      plan(held.some((g) => g.kind === "new_per_day") ? [NEW_TASK] : []),
    );
    vi.mocked(api.goalSetWords).mockImplementation(async (_p, words) => {
      if (!words.includes("每天")) {
        throw { code: "plan.goal_unreadable", message: "not a goal", params: { words } };
      }
      const g = goal("new_per_day", 1);
      held = [g];
      return g;
    });
    vi.mocked(api.goalSet).mockImplementation(async (_p, kind, target) => {
      const g = goal(kind, target);
      held = [...held.filter((x) => x.kind !== kind), g];
      return g;
    });
    vi.mocked(api.goalRemove).mockImplementation(async (_p, kind) => {
      held = held.filter((x) => x.kind !== kind);
      return null;
    });
  });

  it("starts empty, adds a goal in words, shows today's plan from it, and removes it", async () => {
    const user = userEvent.setup();
    renderWithI18n(<GoalsTab />);
    expect(await screen.findByTestId("goals-empty")).toHaveTextContent("小明");
    expect(await screen.findByTestId("plan-empty")).toBeInTheDocument();

    await user.type(screen.getByTestId("goal-words"), "每天背一首新诗");
    await user.click(screen.getByTestId("goal-add-words"));
    expect(api.goalSetWords).toHaveBeenCalledWith("c1", "每天背一首新诗");
    const items = await screen.findAllByTestId("goal-item");
    expect(items.map((i) => i.textContent)).toEqual(["每天学 1 首新的 删除"]);
    expect(screen.getByTestId("goal-words")).toHaveValue("");
    expect(await screen.findByTestId("plan-task")).toHaveTextContent("静夜思");

    await user.click(screen.getByTestId("goal-remove-new_per_day"));
    expect(api.goalRemove).toHaveBeenCalledWith("c1", "new_per_day");
    expect(await screen.findByTestId("goals-empty")).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByTestId("plan-task")).toBeNull());
  });

  it("sets a goal by kind and number", async () => {
    const user = userEvent.setup();
    renderWithI18n(<GoalsTab />, "en");
    await screen.findByTestId("goals-empty");
    await user.selectOptions(screen.getByTestId("goal-kind"), "reviews_per_week");
    await user.clear(screen.getByTestId("goal-target"));
    await user.type(screen.getByTestId("goal-target"), "3");
    await user.click(screen.getByTestId("goal-add-kind"));
    expect(api.goalSet).toHaveBeenCalledWith("c1", "reviews_per_week", 3);
    const list = await screen.findByTestId("goals-list");
    expect(within(list).getByTestId("goal-item")).toHaveTextContent("3 reviews a week");
  });

  it("says in plain words when the core cannot read the goal, keeping what was typed and the goals there were", async () => {
    const user = userEvent.setup();
    held = [goal("reviews_per_week", 3)];
    renderWithI18n(<GoalsTab />);
    await screen.findByTestId("goals-list");
    await user.type(screen.getByTestId("goal-words"), "多读书");
    await user.click(screen.getByTestId("goal-add-words"));
    const error = await screen.findByTestId("goals-error");
    expect(error).toHaveTextContent("看不懂这个目标：“多读书”");
    expect(error).not.toHaveTextContent("not a goal");
    expect(screen.getByTestId("goal-words")).toHaveValue("多读书");
    expect(screen.getAllByTestId("goal-item")).toHaveLength(1);
  });
});
