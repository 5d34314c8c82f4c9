import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../api";
import { profile, renderWithI18n } from "../test/helpers";
import { Welcome } from "./Welcome";

vi.mock("../api");

const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const ming = profile({ id: "c1", kind: "child", name: "小明", grade: 2 });

describe("welcome: profile picker and PIN dialog", () => {
  beforeEach(() => {
    vi.mocked(api.profilesList).mockResolvedValue([mum, ming]);
  });

  it("shows one card per profile from the api, with the test hooks", async () => {
    renderWithI18n(<Welcome onChild={vi.fn()} onParent={vi.fn()} />);
    const cards = await screen.findAllByTestId("profile-card");
    expect(cards).toHaveLength(2);
    const byName = Object.fromEntries(cards.map((c) => [c.getAttribute("data-name"), c.getAttribute("data-kind")]));
    expect(byName).toEqual({ 妈妈: "parent", 小明: "child" });
    expect(screen.getByText("二年级")).toBeInTheDocument();
  });

  it("a child goes straight in", async () => {
    const onChild = vi.fn();
    const user = userEvent.setup();
    renderWithI18n(<Welcome onChild={onChild} onParent={vi.fn()} />);
    const card = (await screen.findAllByTestId("profile-card")).find((c) => c.dataset.name === "小明")!;
    await user.click(card);
    expect(onChild).toHaveBeenCalledWith(ming);
    expect(screen.queryByTestId("pin-input")).not.toBeInTheDocument();
  });

  async function submitWrongPin(locale: "zh-CN" | "en" = "zh-CN") {
    const onParent = vi.fn();
    const user = userEvent.setup();
    renderWithI18n(<Welcome onChild={vi.fn()} onParent={onParent} />, locale);
    const card = (await screen.findAllByTestId("profile-card")).find((c) => c.dataset.kind === "parent")!;
    await user.click(card);
    const input = screen.getByTestId("pin-input");
    expect(input).toHaveAttribute("inputmode", "numeric");
    await user.type(input, "0000");
    await user.click(screen.getByTestId("pin-submit"));
    return { onParent, error: await screen.findByTestId("pin-error") };
  }

  // What the core sends for a wrong PIN (src-tauri's CmdError).
  const wrongPin = {
    code: "pin.wrong",
    message: "wrong PIN; 2 tries left before the parent area locks",
    params: { tries_left: 2 },
  };

  it("says a wrong PIN in Chinese, with the tries left, and does not unlock", async () => {
    vi.mocked(api.parentUnlock).mockRejectedValue(wrongPin);
    const { onParent, error } = await submitWrongPin();
    expect(error.textContent).toBe("密码不对。还可以再试 2 次，之后家长区会锁住几分钟。");
    expect(api.parentUnlock).toHaveBeenCalledWith("p1", "0000");
    expect(onParent).not.toHaveBeenCalled();
    expect(screen.getByTestId("pin-input")).toHaveValue("");
  });

  it("says a wrong PIN in English when the UI is in English", async () => {
    vi.mocked(api.parentUnlock).mockRejectedValue(wrongPin);
    const { error } = await submitWrongPin("en");
    expect(error.textContent).toBe("Wrong PIN. 2 more tries before the parent area locks for a few minutes.");
  });

  it("the last try before the lock is said as such", async () => {
    vi.mocked(api.parentUnlock).mockRejectedValue({ ...wrongPin, params: { tries_left: 1 } });
    const { error } = await submitWrongPin();
    expect(error.textContent).toBe("密码不对。再错一次，家长区就会锁住几分钟。");
  });

  // The core sends the lock's end in UTC; the dialog shows the local clock time.
  const until = "2026-03-01T06:05:00Z";
  const end = new Date(until);
  const localClock = `${String(end.getHours()).padStart(2, "0")}:${String(end.getMinutes()).padStart(2, "0")}`;
  const locked = { code: "pin.locked", message: `too many wrong PINs; the parent area is locked until ${until}`, params: { until } };

  it("says the lock and its end in local time, in Chinese", async () => {
    vi.mocked(api.parentUnlock).mockRejectedValue(locked);
    const { error } = await submitWrongPin();
    expect(error.textContent).toBe(`密码错的次数太多，家长区已经锁住了，请在 ${localClock} 以后再试。`);
    expect(error.textContent).not.toContain("2026");
  });

  it("says the lock and its end in local time, in English", async () => {
    vi.mocked(api.parentUnlock).mockRejectedValue(locked);
    const { error } = await submitWrongPin("en");
    expect(error.textContent).toBe(`Too many wrong PINs: the parent area is locked. Try again after ${localClock}.`);
  });

  it("shows the core's message for a code it has no words for", async () => {
    vi.mocked(api.parentUnlock).mockRejectedValue({ code: "error", message: "the database file is locked", params: {} });
    const { error } = await submitWrongPin();
    expect(error.textContent).toBe("the database file is locked");
  });

  it("asks for a PIN before calling the api", async () => {
    const user = userEvent.setup();
    renderWithI18n(<Welcome onChild={vi.fn()} onParent={vi.fn()} />);
    await user.click((await screen.findAllByTestId("profile-card")).find((c) => c.dataset.kind === "parent")!);
    await user.click(screen.getByTestId("pin-submit"));
    expect(screen.getByTestId("pin-error")).toHaveTextContent("请输入密码。");
    expect(api.parentUnlock).not.toHaveBeenCalled();
  });

  it("the right PIN opens the parent area (Enter submits)", async () => {
    vi.mocked(api.parentUnlock).mockResolvedValue(null);
    const onParent = vi.fn();
    const user = userEvent.setup();
    renderWithI18n(<Welcome onChild={vi.fn()} onParent={onParent} />);
    await user.click((await screen.findAllByTestId("profile-card")).find((c) => c.dataset.kind === "parent")!);
    await user.type(screen.getByTestId("pin-input"), "1234{Enter}");
    await waitFor(() => expect(onParent).toHaveBeenCalledWith(mum));
    expect(api.parentUnlock).toHaveBeenCalledWith("p1", "1234");
  });

  it("shows a load error in plain words", async () => {
    vi.mocked(api.profilesList).mockRejectedValue("the database file is locked");
    renderWithI18n(<Welcome onChild={vi.fn()} onParent={vi.fn()} />);
    expect(await screen.findByRole("alert")).toHaveTextContent("the database file is locked");
  });
});
