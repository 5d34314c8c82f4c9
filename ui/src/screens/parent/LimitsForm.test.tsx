import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as family from "../../familyApi";
import { renderWithI18n } from "../../test/helpers";
import { checkLimits, LimitsForm } from "./LimitsForm";

vi.mock("../../familyApi");

describe("the daily limits form", () => {
  beforeEach(() => {
    vi.mocked(family.limitsGet).mockResolvedValue({ chat_minutes: 30, quiet: { from: "21:00", to: "07:00" } });
    vi.mocked(family.limitsSet).mockReset();
    vi.mocked(family.limitsSet).mockImplementation(async (_id, l) => ({
      ...l,
      quiet: l.quiet && { from: l.quiet.from.padStart(5, "0"), to: l.quiet.to.padStart(5, "0") },
    }));
  });

  it("shows the child's limits, empty fields as no limit", async () => {
    renderWithI18n(<LimitsForm childId="c1" name="小明" />);
    await waitFor(() => expect(screen.getByTestId("limits-chat")).toHaveValue("30"));
    expect(family.limitsGet).toHaveBeenCalledWith("c1");
    expect(screen.getByTestId("limits-calls")).toHaveValue("");
    expect(screen.getByTestId("limits-calls")).toHaveAttribute("placeholder", "不限制");
    expect(screen.getByTestId("limits-from")).toHaveValue("21:00");
    expect(screen.getByTestId("limits-to")).toHaveValue("07:00");
  });

  it("names each problem under its field and sends nothing", async () => {
    const user = userEvent.setup();
    renderWithI18n(<LimitsForm childId="c1" name="小明" />);
    await waitFor(() => expect(screen.getByTestId("limits-chat")).toHaveValue("30"));
    await user.clear(screen.getByTestId("limits-chat"));
    await user.type(screen.getByTestId("limits-chat"), "2000");
    await user.type(screen.getByTestId("limits-calls"), "4.5");
    await user.type(screen.getByTestId("limits-cost"), "abc");
    await user.clear(screen.getByTestId("limits-to"));
    await user.type(screen.getByTestId("limits-to"), "25:00");
    await user.click(screen.getByTestId("limits-save"));
    expect(screen.getByTestId("limits-chat")).toHaveAttribute("aria-invalid", "true");
    expect(screen.getByText("一天最多 1440 分钟。")).toBeInTheDocument();
    expect(screen.getByText("请填一个整数，或者空着不限制。")).toBeInTheDocument();
    expect(screen.getByText("请填一个数字，比如 0.5，或者空着不限制。")).toBeInTheDocument();
    expect(screen.getByText("请按 21:00 这样的格式填时间。")).toBeInTheDocument();
    expect(screen.getByTestId("limits-from")).not.toHaveAttribute("aria-invalid");
    expect(family.limitsSet).not.toHaveBeenCalled();
    // Typing in a field clears its error only.
    await user.type(screen.getByTestId("limits-calls"), "0");
    expect(screen.getByTestId("limits-calls")).not.toHaveAttribute("aria-invalid");
    expect(screen.getByTestId("limits-chat")).toHaveAttribute("aria-invalid", "true");
  });

  it("saves what was typed, empty as no limit, and shows it as kept", async () => {
    const user = userEvent.setup();
    renderWithI18n(<LimitsForm childId="c1" name="小明" />, "en");
    await waitFor(() => expect(screen.getByTestId("limits-chat")).toHaveValue("30"));
    await user.clear(screen.getByTestId("limits-chat"));
    await user.type(screen.getByTestId("limits-calls"), "40");
    await user.type(screen.getByTestId("limits-cost"), "0.2");
    await user.clear(screen.getByTestId("limits-from"));
    await user.type(screen.getByTestId("limits-from"), "9:30");
    await user.click(screen.getByTestId("limits-save"));
    expect(family.limitsSet).toHaveBeenCalledWith("c1", { model_calls: 40, cost_usd: 0.2, quiet: { from: "9:30", to: "07:00" } });
    expect(await screen.findByTestId("limits-saved")).toHaveTextContent("Limits saved.");
    expect(screen.getByTestId("limits-from")).toHaveValue("09:30");
  });

  it("the core's refusal is shown above the button, what was typed stays", async () => {
    const user = userEvent.setup();
    vi.mocked(family.limitsSet).mockRejectedValue("小明 is a parent; daily limits are for children");
    renderWithI18n(<LimitsForm childId="c1" name="小明" />);
    await waitFor(() => expect(screen.getByTestId("limits-chat")).toHaveValue("30"));
    await user.click(screen.getByTestId("limits-save"));
    expect(await screen.findByTestId("limits-error")).toHaveTextContent("daily limits are for children");
    expect(screen.getByTestId("limits-chat")).toHaveValue("30");
  });

  it("checks: both quiet times or neither, not the same", () => {
    const v = { chat: "", calls: "", cost: "", from: "", to: "" };
    expect(checkLimits(v)).toEqual({});
    expect(checkLimits({ ...v, from: "21:00" })).toEqual({ to: "limits.err.both" });
    expect(checkLimits({ ...v, from: "7:00", to: "07:00" })).toEqual({ to: "limits.err.same" });
    expect(checkLimits({ ...v, cost: "1000.5" })).toEqual({ cost: "limits.err.cost" });
    expect(checkLimits({ ...v, calls: "100001" })).toEqual({ calls: "limits.err.calls" });
    expect(checkLimits({ ...v, chat: "1440", calls: "0", cost: "0" })).toEqual({});
  });
});
