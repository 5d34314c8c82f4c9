import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "./api";
import { tables, translate, type MessageKey } from "./i18n";
import { Welcome } from "./screens/Welcome";
import { profile, renderWithI18n } from "./test/helpers";

vi.mock("./api");

const placeholders = (s: string) => (s.match(/\{\w+\}/g) ?? []).sort();

describe("i18n tables", () => {
  const zh = tables["zh-CN"];
  const en = tables.en;

  it("zh-CN and en have exactly the same keys", () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(zh).sort());
    expect(Object.keys(zh).length).toBeGreaterThan(50);
  });

  it("every string is non-empty and uses the same placeholders in both languages", () => {
    for (const key of Object.keys(zh) as MessageKey[]) {
      expect(zh[key].trim(), `zh-CN ${key}`).not.toBe("");
      expect(en[key].trim(), `en ${key}`).not.toBe("");
      expect(placeholders(en[key]), `placeholders of ${key}`).toEqual(placeholders(zh[key]));
    }
  });

  it("the English table is really English (no stray Chinese outside the language names)", () => {
    const allowed = new Set<MessageKey>(["app.name", "app.logo", "locale.zh", "filter.langZh"]);
    for (const key of Object.keys(en) as MessageKey[]) {
      if (allowed.has(key)) continue;
      expect(en[key], `en ${key}`).not.toMatch(/[\u4e00-\u9fff]/);
    }
  });

  it("fills placeholders", () => {
    expect(translate("zh-CN", "child.hello", { name: "小明" })).toBe("小明，你好！今天读点什么？");
    expect(translate("en", "material.byline", { author: "Li Bai", dynasty: "Tang" })).toBe("Li Bai (Tang)");
  });
});

describe("switching the language", () => {
  beforeEach(() => {
    vi.mocked(api.profilesList).mockResolvedValue([profile({ id: "c1", kind: "child", name: "小明", grade: 1 })]);
    vi.mocked(api.localeSet).mockResolvedValue(null);
  });

  it("changes the visible strings and saves the choice with localeSet", async () => {
    const user = userEvent.setup();
    renderWithI18n(<Welcome onChild={vi.fn()} onParent={vi.fn()} />);
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("今天谁来学习？");
    expect(await screen.findByText("一年级")).toBeInTheDocument();
    expect(screen.getByTestId("locale-zh")).toHaveAttribute("aria-pressed", "true");

    await user.click(screen.getByTestId("locale-en"));
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("Who's studying today?");
    expect(screen.getByText("Grade 1")).toBeInTheDocument();
    expect(screen.queryByText("今天谁来学习？")).not.toBeInTheDocument();
    expect(screen.getByTestId("locale-en")).toHaveAttribute("aria-pressed", "true");
    expect(api.localeSet).toHaveBeenCalledTimes(1);
    expect(api.localeSet).toHaveBeenCalledWith("en");
    expect(document.documentElement.lang).toBe("en");

    await user.click(screen.getByTestId("locale-zh"));
    expect(screen.getByRole("heading", { level: 1 })).toHaveTextContent("今天谁来学习？");
    expect(api.localeSet).toHaveBeenLastCalledWith("zh-CN");
  });

  it("does not call localeSet when the language is already chosen", async () => {
    const user = userEvent.setup();
    renderWithI18n(<Welcome onChild={vi.fn()} onParent={vi.fn()} />, "en");
    await user.click(screen.getByTestId("locale-en"));
    expect(api.localeSet).not.toHaveBeenCalled();
  });

  it("says so when the choice could not be saved", async () => {
    vi.mocked(api.localeSet).mockRejectedValue("settings are read-only");
    const user = userEvent.setup();
    renderWithI18n(<Welcome onChild={vi.fn()} onParent={vi.fn()} />);
    await user.click(screen.getByTestId("locale-en"));
    await waitFor(() =>
      expect(screen.getByText("Couldn't save the language setting: settings are read-only")).toBeInTheDocument(),
    );
  });
});
