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

  it("shows the api's PIN error as-is and does not unlock", async () => {
    const message = "wrong PIN; 2 tries left before a 5-minute lock";
    vi.mocked(api.parentUnlock).mockRejectedValue(message);
    const onParent = vi.fn();
    const user = userEvent.setup();
    renderWithI18n(<Welcome onChild={vi.fn()} onParent={onParent} />);

    const card = (await screen.findAllByTestId("profile-card")).find((c) => c.dataset.kind === "parent")!;
    await user.click(card);
    const input = screen.getByTestId("pin-input");
    expect(input).toHaveAttribute("inputmode", "numeric");
    await user.type(input, "0000");
    await user.click(screen.getByTestId("pin-submit"));

    expect(await screen.findByTestId("pin-error")).toHaveTextContent(message);
    expect(screen.getByTestId("pin-error").textContent).toBe(message);
    expect(api.parentUnlock).toHaveBeenCalledWith("p1", "0000");
    expect(onParent).not.toHaveBeenCalled();
    expect(screen.getByTestId("pin-input")).toHaveValue("");
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
