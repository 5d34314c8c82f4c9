import { screen, waitFor, within } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import * as companion from "../../companionApi";
import type { Memory, MemoryKind, MemorySource } from "../../api";
import { profile, renderWithI18n } from "../../test/helpers";
import { MemoriesTab } from "./MemoriesTab";

vi.mock("../../api");
vi.mock("../../companionApi");

const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const ming = profile({ id: "c1", kind: "child", name: "小明" });
const hong = profile({ id: "c2", kind: "child", name: "小红" });

let seq = 0;
const memory = (profile_id: string, kind: MemoryKind, text: string, source: MemorySource): Memory => {
  seq += 1;
  return {
    id: `m${seq}`,
    profile_id,
    kind,
    text,
    source,
    thread_id: source === "conversation" ? "t1" : null,
    created_at: "2026-03-02T00:00:00Z",
    updated_at: "2026-03-02T00:00:00Z",
  };
};

describe("memories", () => {
  // The memories as the core holds them: add, edit and delete change them.
  let held: Memory[];

  beforeEach(() => {
    held = [memory("c1", "likes", "喜欢恐龙", "explicit"), memory("c1", "finds_hard", "分不清“己”和“已”", "conversation"), memory("c2", "likes", "喜欢画画", "parent")];
    vi.mocked(api.profilesList).mockResolvedValue([mum, ming, hong]);
    vi.mocked(companion.memoriesList).mockImplementation(async (p) => held.filter((m) => m.profile_id === p));
    vi.mocked(companion.memoryAdd).mockImplementation(async (p, kind, text) => {
      if (text.length > 500) throw { code: "invalid", message: "a memory has at most 500 characters", params: {} };
      const m = memory(p, kind, text, "parent");
      held = [m, ...held];
      return m;
    });
    vi.mocked(companion.memoryEdit).mockImplementation(async (_p, id, text, kind) => {
      const m = held.find((x) => x.id === id)!;
      Object.assign(m, { text, kind: kind ?? m.kind });
      return m;
    });
    vi.mocked(companion.memoryDelete).mockImplementation(async (_p, id) => {
      const m = held.find((x) => x.id === id)!;
      held = held.filter((x) => x.id !== id);
      return m;
    });
  });

  it("shows each child's memories with their kind and where they came from", async () => {
    const user = userEvent.setup();
    renderWithI18n(<MemoriesTab />);
    const items = await screen.findAllByTestId("memory-item");
    expect(items.map((i) => i.textContent)).toEqual([
      "喜欢 喜欢恐龙 孩子让记住的 修改 删除",
      "觉得难 分不清“己”和“已” 从对话里记下的 修改 删除",
    ]);
    expect(companion.memoriesList).toHaveBeenCalledWith("c1");
    await user.selectOptions(screen.getByTestId("memories-child"), "c2");
    await waitFor(() => expect(screen.getAllByTestId("memory-item").map((i) => i.dataset.source)).toEqual(["parent"]));
    expect(screen.getByTestId("memory-item")).toHaveTextContent("喜欢画画");
  });

  it("adds, edits and deletes a memory", async () => {
    const user = userEvent.setup();
    renderWithI18n(<MemoriesTab />, "en");
    await screen.findAllByTestId("memory-item");
    await user.selectOptions(screen.getByTestId("memory-kind"), "working_towards");
    await user.type(screen.getByTestId("memory-new-text"), "背完《春晓》");
    await user.click(screen.getByTestId("memory-add"));
    expect(companion.memoryAdd).toHaveBeenCalledWith("c1", "working_towards", "背完《春晓》");
    await waitFor(() => expect(screen.getAllByTestId("memory-item")).toHaveLength(3));
    expect(screen.getAllByTestId("memory-item")[0]).toHaveTextContent("Working towards 背完《春晓》 written by a parent");
    expect(screen.getByTestId("memory-new-text")).toHaveValue("");

    // Edit the dinosaur one: its text and kind.
    const dino = screen.getAllByTestId("memory-item")[1];
    await user.click(within(dino).getByTestId("memory-edit"));
    const form = screen.getByTestId("memory-edit-form");
    await user.clear(within(form).getByTestId("memory-edit-text"));
    await user.type(within(form).getByTestId("memory-edit-text"), "喜欢霸王龙");
    await user.selectOptions(within(form).getByTestId("memory-edit-kind"), "other");
    await user.click(within(form).getByTestId("memory-save"));
    expect(companion.memoryEdit).toHaveBeenCalledWith("c1", held[1].id, "喜欢霸王龙", "other");
    await waitFor(() => expect(screen.queryByTestId("memory-edit-form")).toBeNull());
    expect(screen.getAllByTestId("memory-item")[1]).toHaveTextContent("Other 喜欢霸王龙");

    // Delete it.
    const id = held[1].id;
    await user.click(within(screen.getAllByTestId("memory-item")[1]).getByTestId("memory-delete"));
    expect(companion.memoryDelete).toHaveBeenCalledWith("c1", id);
    await waitFor(() => expect(screen.getAllByTestId("memory-item")).toHaveLength(2));
    expect(screen.queryByText("喜欢霸王龙")).toBeNull();
  });

  it("keeps what was typed when the core refuses a memory, and says why", async () => {
    const user = userEvent.setup();
    held = [];
    renderWithI18n(<MemoriesTab />);
    expect(await screen.findByTestId("memories-empty")).toHaveTextContent("还没有关于小明的记忆。");
    const long = "很".repeat(501);
    await user.click(screen.getByTestId("memory-new-text"));
    await user.paste(long);
    await user.click(screen.getByTestId("memory-add"));
    expect(await screen.findByTestId("memories-error")).toHaveTextContent("at most 500 characters");
    expect(screen.getByTestId("memory-new-text")).toHaveValue(long);
    expect(screen.getByTestId("memories-empty")).toBeInTheDocument();
  });
});
