import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../api";
import { renderWithI18n } from "../test/helpers";
import { Setup } from "./Setup";

vi.mock("../api");

async function fill(values: { parentName?: string; pin?: string; pin2?: string; childName?: string; grade?: string }) {
  const user = userEvent.setup();
  if (values.parentName) await user.type(screen.getByTestId("setup-parent-name"), values.parentName);
  if (values.pin) await user.type(screen.getByTestId("setup-parent-pin"), values.pin);
  if (values.pin2) await user.type(screen.getByTestId("setup-parent-pin2"), values.pin2);
  if (values.childName) await user.type(screen.getByTestId("setup-child-name"), values.childName);
  if (values.grade) await user.selectOptions(screen.getByTestId("setup-child-grade"), values.grade);
  return user;
}

describe("first-run setup", () => {
  beforeEach(() => {
    vi.mocked(api.setupFamily).mockResolvedValue([]);
  });

  it("refuses empty names and does not call the api", async () => {
    const onDone = vi.fn();
    renderWithI18n(<Setup onDone={onDone} />);
    const user = await fill({ pin: "1234", pin2: "1234" });
    await user.click(screen.getByTestId("setup-submit"));

    expect(screen.getAllByText("请填写名字。")).toHaveLength(2);
    expect(screen.getByTestId("setup-parent-name")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByTestId("setup-child-name")).toHaveAttribute("aria-invalid", "true");
    expect(api.setupFamily).not.toHaveBeenCalled();
    expect(onDone).not.toHaveBeenCalled();
  });

  it("refuses a PIN shorter than 4 digits", async () => {
    renderWithI18n(<Setup onDone={vi.fn()} />);
    const user = await fill({ parentName: "妈妈", pin: "123", pin2: "123", childName: "小明" });
    await user.click(screen.getByTestId("setup-submit"));

    expect(screen.getByText("密码要用 4 到 8 位数字。")).toBeInTheDocument();
    expect(screen.getByTestId("setup-parent-pin")).toHaveAttribute("aria-invalid", "true");
    expect(api.setupFamily).not.toHaveBeenCalled();
  });

  it("keeps only digits in the PIN field", async () => {
    renderWithI18n(<Setup onDone={vi.fn()} />);
    await fill({ pin: "12ab34" });
    expect(screen.getByTestId("setup-parent-pin")).toHaveValue("1234");
  });

  it("refuses PINs that don't match", async () => {
    renderWithI18n(<Setup onDone={vi.fn()} />);
    const user = await fill({ parentName: "妈妈", pin: "1234", pin2: "4321", childName: "小明" });
    await user.click(screen.getByTestId("setup-submit"));

    expect(screen.getByText("两次输入的密码不一样。")).toBeInTheDocument();
    expect(screen.getByTestId("setup-parent-pin2")).toHaveAttribute("aria-invalid", "true");
    expect(screen.queryByText("密码要用 4 到 8 位数字。")).not.toBeInTheDocument();
    expect(api.setupFamily).not.toHaveBeenCalled();
  });

  it("sends a valid form to setupFamily and moves on", async () => {
    const onDone = vi.fn();
    renderWithI18n(<Setup onDone={onDone} />);
    const user = await fill({ parentName: "  妈妈 ", pin: "246810", pin2: "246810", childName: "小明", grade: "3" });
    await user.click(screen.getByTestId("setup-submit"));

    await waitFor(() => expect(onDone).toHaveBeenCalledTimes(1));
    expect(api.setupFamily).toHaveBeenCalledTimes(1);
    expect(api.setupFamily).toHaveBeenCalledWith(
      { kind: "parent", name: "妈妈", pin: "246810", locale: "zh-CN" },
      { kind: "child", name: "小明", grade: 3, locale: "zh-CN" },
    );
    expect(screen.queryByRole("alert")).not.toBeInTheDocument();
  });

  const nameTaken = {
    code: "profile.name_taken",
    message: 'a profile named "妈妈" already exists',
    params: { name: "妈妈" },
  };

  it("says a taken name in Chinese and stays on the form", async () => {
    vi.mocked(api.setupFamily).mockRejectedValue(nameTaken);
    const onDone = vi.fn();
    renderWithI18n(<Setup onDone={onDone} />);
    const user = await fill({ parentName: "妈妈", pin: "1234", pin2: "1234", childName: "小明" });
    await user.click(screen.getByTestId("setup-submit"));

    expect((await screen.findByTestId("setup-error")).textContent).toBe("没能保存：已经有叫“妈妈”的成员了，换个名字吧。");
    expect(onDone).not.toHaveBeenCalled();
    expect(screen.getByTestId("setup-submit")).toBeEnabled();
  });

  it("says a taken name in English when the UI is in English", async () => {
    vi.mocked(api.setupFamily).mockRejectedValue(nameTaken);
    renderWithI18n(<Setup onDone={vi.fn()} />, "en");
    const user = await fill({ parentName: "妈妈", pin: "1234", pin2: "1234", childName: "小明" });
    await user.click(screen.getByTestId("setup-submit"));

    expect((await screen.findByTestId("setup-error")).textContent).toBe(
      "Couldn't save: There is already someone called “妈妈”. Please choose another name.",
    );
  });

  it("shows a plain message from the api as it is", async () => {
    vi.mocked(api.setupFamily).mockRejectedValue("the disk is full");
    renderWithI18n(<Setup onDone={vi.fn()} />);
    const user = await fill({ parentName: "妈妈", pin: "1234", pin2: "1234", childName: "小明" });
    await user.click(screen.getByTestId("setup-submit"));
    expect(await screen.findByTestId("setup-error")).toHaveTextContent("the disk is full");
  });
});
