import { describe, expect, it } from "vitest";
import { lampState } from "../test/samples";
import { armGesture, eventName, initialLampUi, lampAttached, lampReducer, lightTint, POWER_ON_STATE } from "./reducer";

describe("lamp reducer", () => {
  it("is hidden without a lamp and shown once one connects or a state notice arrives", () => {
    expect(lampAttached(initialLampUi)).toBe(false);
    const off = lampReducer(initialLampUi, { type: "state", state: lampState({ connection: "disconnected" }) });
    expect(lampAttached(off)).toBe(false);
    const on = lampReducer(off, { type: "notice", notice: { kind: "connection", state: "connecting", port: "/dev/ttyACM1", at_unix_ms: 1 } });
    expect(lampAttached(on)).toBe(true);
    expect(on.state?.port).toBe("/dev/ttyACM1");
    const sim = lampReducer(initialLampUi, {
      type: "notice",
      notice: { kind: "state", state: lampState({ connection: "disconnected", expression: "thinking" }), at_unix_ms: 2 },
    });
    expect(lampAttached(sim)).toBe(true);
    expect(sim.state?.expression).toBe("thinking");
    const gone = lampReducer(sim, { type: "notice", notice: { kind: "connection", state: "disconnected", port: null, at_unix_ms: 3 } });
    expect(lampAttached(gone)).toBe(false);
  });

  it("starts from the power-on state when a connection notice comes first, and remembers events", () => {
    const ui = lampReducer(initialLampUi, { type: "notice", notice: { kind: "connection", state: "connected", port: null, at_unix_ms: 1 } });
    expect(ui.state).toEqual({ ...POWER_ON_STATE, connection: "connected" });
    const pressed = lampReducer(ui, { type: "notice", notice: { kind: "event", event: { button: "start" }, at_unix_ms: 2 } });
    expect(pressed.lastEvent).toEqual({ button: "start" });
    expect(eventName({ button: "start" })).toBe("button:start");
    expect(eventName("touch")).toBe("touch");
    expect(eventName({ presence: false })).toBe("presence:false");
  });

  it("reads the arm pose and tints the light from warm to cool", () => {
    expect(armGesture("rest")).toBeNull();
    expect(armGesture({ moving: { gesture: "wave", speed: 80 } })).toBe("wave");
    expect(lightTint(2700)).toBe("rgb(255, 176, 96)");
    expect(lightTint(6500)).toBe("rgb(200, 224, 255)");
    expect(lightTint(9000)).toBe(lightTint(6500));
  });
});
