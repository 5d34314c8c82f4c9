import { screen, waitFor } from "@testing-library/react";
import userEvent from "@testing-library/user-event";
import { beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../../api";
import { emit, resetEvents } from "../../test/fakeEvents";
import { renderWithI18n } from "../../test/helpers";
import { lampState } from "../../test/samples";
import { LampDock } from "./LampDock";
import { LampPanel } from "./LampPanel";

vi.mock("../../api");
vi.mock("../../events", () => import("../../test/fakeEvents"));

describe("lamp panel", () => {
  beforeEach(() => {
    resetEvents();
    vi.mocked(api.lampPanelEvent).mockResolvedValue(null);
  });

  it("draws light, face, arm and no card for a lamp at rest", () => {
    renderWithI18n(<LampPanel state={lampState({ light: { brightness: 35, temperature_k: 2700, transition_ms: 0 }, expression: "sleep" })} />);
    expect(screen.getByTestId("lamp-light")).toHaveAttribute("data-brightness", "35");
    expect(screen.getByTestId("lamp-face")).toHaveAttribute("data-expression", "sleep");
    expect(screen.getByTestId("lamp-face")).toHaveAccessibleName("睡觉");
    expect(screen.getByTestId("lamp-arm")).toHaveAttribute("data-pose", "rest");
    expect(screen.getByTestId("lamp-arm")).toHaveTextContent("手臂休息中");
    expect(screen.queryByTestId("lamp-card")).not.toBeInTheDocument();
  });

  it("shows a moving arm with its gesture and the projector card when the projector is on", () => {
    renderWithI18n(
      <LampPanel
        state={lampState({
          expression: "encourage",
          arm: { moving: { gesture: "celebrate", speed: 100 } },
          projector: { on: true, card: { title: "静夜思", lines: ["床前明月光", "疑是地上霜"] } },
        })}
      />,
      "en",
    );
    expect(screen.getByTestId("lamp-face")).toHaveAttribute("data-expression", "encourage");
    expect(screen.getByTestId("lamp-arm")).toHaveAttribute("data-pose", "celebrate");
    expect(screen.getByTestId("lamp-arm")).toHaveTextContent("Arm: celebrating");
    const card = screen.getByTestId("lamp-card");
    expect(card).toHaveTextContent("静夜思");
    expect(card).toHaveTextContent("疑是地上霜");
  });

  it("hides the card while the projector is off even if one is stored", () => {
    renderWithI18n(<LampPanel state={lampState({ projector: { on: false, card: { title: "t", lines: [] } } })} />);
    expect(screen.queryByTestId("lamp-card")).not.toBeInTheDocument();
  });

  it("its buttons send the lamp's own events", async () => {
    const user = userEvent.setup();
    renderWithI18n(<LampPanel state={lampState()} />);
    await user.click(screen.getByTestId("lamp-button-start"));
    await user.click(screen.getByTestId("lamp-button-stop"));
    await user.click(screen.getByTestId("lamp-button-touch"));
    await user.click(screen.getByTestId("lamp-button-arrive"));
    await user.click(screen.getByTestId("lamp-button-leave"));
    expect(vi.mocked(api.lampPanelEvent).mock.calls.map((c) => c[0])).toEqual([
      { button: "start" },
      { button: "stop" },
      "touch",
      { presence: true },
      { presence: false },
    ]);
  });

  it("shows the api's error when an event can't be sent", async () => {
    vi.mocked(api.lampPanelEvent).mockRejectedValue("the lamp is not connected");
    const user = userEvent.setup();
    renderWithI18n(<LampPanel state={lampState()} />);
    await user.click(screen.getByTestId("lamp-button-touch"));
    expect(await screen.findByRole("alert")).toHaveTextContent("the lamp is not connected");
  });
});

describe("lamp dock on child screens", () => {
  beforeEach(() => resetEvents());

  it("stays hidden without a lamp, appears when one connects and follows state notices", async () => {
    vi.mocked(api.lampStatus).mockResolvedValue(null);
    const user = userEvent.setup();
    renderWithI18n(<LampDock />);
    await waitFor(() => expect(api.lampStatus).toHaveBeenCalled());
    expect(screen.queryByTestId("lamp-dock-toggle")).not.toBeInTheDocument();

    emit("lamp://notice", { kind: "state", state: lampState({ expression: "listening" }), at_unix_ms: 1 });
    await user.click(screen.getByTestId("lamp-dock-toggle"));
    expect(screen.getByTestId("lamp-face")).toHaveAttribute("data-expression", "listening");

    emit("lamp://notice", { kind: "state", state: lampState({ expression: "happy" }), at_unix_ms: 2 });
    expect(screen.getByTestId("lamp-face")).toHaveAttribute("data-expression", "happy");

    emit("lamp://notice", { kind: "event", event: "touch", at_unix_ms: 3 });
    expect(screen.getByText("摸了一下台灯")).toBeInTheDocument();

    emit("lamp://notice", { kind: "connection", state: "disconnected", port: null, at_unix_ms: 4 });
    expect(screen.queryByTestId("lamp-panel")).not.toBeInTheDocument();
  });

  it("shows a lamp that is already connected at start", async () => {
    vi.mocked(api.lampStatus).mockResolvedValue(lampState({ connection: "connected" }));
    renderWithI18n(<LampDock />);
    expect(await screen.findByTestId("lamp-dock-toggle")).toBeInTheDocument();
    expect(screen.queryByTestId("lamp-panel")).not.toBeInTheDocument();
  });
});
