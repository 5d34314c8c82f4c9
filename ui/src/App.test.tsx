import { render, screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "./api";
import type { AppStatus } from "./api";
import { App } from "./App";
import { I18nProvider } from "./i18n";
import { material, profile } from "./test/helpers";

vi.mock("./api");

const status = (over: Partial<AppStatus> = {}): AppStatus => ({
  first_run: false,
  locale: "zh-CN",
  data_dir: "/home/kid/.local/share/deskmate",
  schema_version: 1,
  ...over,
});

const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const ming = profile({ id: "c1", kind: "child", name: "小明", grade: 2 });

function renderApp() {
  return render(
    <I18nProvider>
      <App />
    </I18nProvider>,
  );
}

describe("App flow", () => {
  beforeEach(() => {
    vi.mocked(api.profilesList).mockResolvedValue([mum, ming]);
    vi.mocked(api.materialsList).mockResolvedValue([material({ id: "m1", title: "静夜思", body: "床前明月光" })]);
    vi.mocked(api.doctor).mockResolvedValue([]);
  });

  it("first run: setup, then the welcome screen", async () => {
    vi.mocked(api.appStatus).mockResolvedValue(status({ first_run: true }));
    vi.mocked(api.setupFamily).mockResolvedValue([mum, ming]);
    const user = userEvent.setup();
    renderApp();

    await user.type(await screen.findByTestId("setup-parent-name"), "妈妈");
    await user.type(screen.getByTestId("setup-parent-pin"), "1234");
    await user.type(screen.getByTestId("setup-parent-pin2"), "1234");
    await user.type(screen.getByTestId("setup-child-name"), "小明");
    await user.selectOptions(screen.getByTestId("setup-child-grade"), "2");
    await user.click(screen.getByTestId("setup-submit"));

    expect(await screen.findAllByTestId("profile-card")).toHaveLength(2);
    expect(api.setupFamily).toHaveBeenCalledTimes(1);
    expect(screen.queryByTestId("setup-submit")).not.toBeInTheDocument();
  });

  it("starts in the saved language without saving it again", async () => {
    vi.mocked(api.appStatus).mockResolvedValue(status({ locale: "en" }));
    renderApp();
    expect(await screen.findByText("Who's studying today?")).toBeInTheDocument();
    expect(screen.getByTestId("locale-en")).toHaveAttribute("aria-pressed", "true");
    expect(api.localeSet).not.toHaveBeenCalled();
  });

  it("child → library → back; parent → PIN → parent home → lock", async () => {
    vi.mocked(api.appStatus).mockResolvedValue(status());
    vi.mocked(api.parentUnlock).mockResolvedValue(null);
    const user = userEvent.setup();
    renderApp();

    const cards = await screen.findAllByTestId("profile-card");
    await user.click(cards.find((c) => c.dataset.kind === "child")!);
    expect(await screen.findByTestId("child-home")).toBeInTheDocument();
    expect(await screen.findByTestId("material-card")).toHaveAttribute("data-title", "静夜思");
    await user.click(screen.getByTestId("back-button"));

    const again = await screen.findAllByTestId("profile-card");
    await user.click(again.find((c) => c.dataset.kind === "parent")!);
    await user.type(screen.getByTestId("pin-input"), "1234");
    await user.click(screen.getByTestId("pin-submit"));
    expect(await screen.findByTestId("parent-home")).toBeInTheDocument();

    await user.click(screen.getByTestId("lock-button"));
    await waitFor(() => expect(screen.queryByTestId("parent-home")).not.toBeInTheDocument());
    expect(await screen.findAllByTestId("profile-card")).toHaveLength(2);
  });

  it("shows a start-up error with a retry", async () => {
    vi.mocked(api.appStatus).mockRejectedValueOnce("the data folder is not writable").mockResolvedValue(status());
    const user = userEvent.setup();
    renderApp();
    expect(await screen.findByTestId("start-error")).toHaveTextContent("the data folder is not writable");
    await user.click(screen.getByRole("button", { name: "再试一次" }));
    expect(await screen.findAllByTestId("profile-card")).toHaveLength(2);
  });
});
