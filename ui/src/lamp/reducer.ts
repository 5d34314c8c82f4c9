/**
 * The lamp as the UI knows it: the last `LampState` (from `lamp_status`,
 * `lamp_connect` or a `state` notice), updated by `lamp://notice`.
 */
import type { ArmPose, DeviceEvent, Gesture, LampNotice, LampState } from "../api";

export interface LampUi {
  state: LampState | null;
  /** A state notice arrived (a simulator or lamp is attached, whatever `connection` says). */
  sawState: boolean;
  /** The last event from the lamp (or the panel), for a short "pressed Start" note. */
  lastEvent: DeviceEvent | null;
}

export type LampAction = { type: "state"; state: LampState | null } | { type: "notice"; notice: LampNotice };

export const initialLampUi: LampUi = { state: null, sawState: false, lastEvent: null };

/** What a lamp shows right after it powers up (`DeviceState::power_on`). */
export const POWER_ON_STATE: LampState = {
  connection: "disconnected",
  port: null,
  device: null,
  light: { brightness: 0, temperature_k: 4000, transition_ms: 0 },
  expression: "sleep",
  arm: "rest",
  projector: { on: false, card: null },
};

export function lampReducer(ui: LampUi, action: LampAction): LampUi {
  if (action.type === "state") return { ...ui, state: action.state };
  const n = action.notice;
  switch (n.kind) {
    case "state":
      return { ...ui, state: n.state, sawState: true };
    case "connection": {
      const base = ui.state ?? POWER_ON_STATE;
      return {
        ...ui,
        state: { ...base, connection: n.state, port: n.port ?? base.port },
        sawState: n.state === "disconnected" ? false : ui.sawState,
      };
    }
    case "event":
      return { ...ui, lastEvent: n.event };
    default:
      return ui;
  }
}

/** Whether to show the panel: a lamp or the simulator is attached. */
export function lampAttached(ui: LampUi): boolean {
  return !!ui.state && (ui.state.connection !== "disconnected" || ui.sawState);
}

/** The gesture the arm is making, or null at rest. */
export function armGesture(arm: ArmPose): Gesture | null {
  return typeof arm === "object" && arm && "moving" in arm ? arm.moving.gesture : null;
}

/** A tint between warm (2700 K) and cool (6500 K) white. */
export function lightTint(kelvin: number): string {
  const t = Math.min(1, Math.max(0, (kelvin - 2700) / (6500 - 2700)));
  const warm = [255, 176, 96];
  const cool = [200, 224, 255];
  const [r, g, b] = warm.map((w, i) => Math.round(w + (cool[i] - w) * t));
  return `rgb(${r}, ${g}, ${b})`;
}

/** A short name for an event, e.g. "button:start", "touch", "presence:true". */
export function eventName(e: DeviceEvent): string {
  if (e === "touch") return "touch";
  if ("button" in e) return `button:${e.button}`;
  return `presence:${String(e.presence)}`;
}
