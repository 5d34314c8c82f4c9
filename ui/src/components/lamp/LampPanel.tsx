import { useState } from "react";
import { Icon } from "../Icon";
import * as api from "../../api";
import type { DeviceEvent, Expression, LampState } from "../../api";
import { errorText } from "../../errors";
import { useT, type MessageKey, type TFunction } from "../../i18n";
import { armGesture, lightTint } from "../../lamp/reducer";

const FACE_KEYS: Record<Expression, MessageKey> = {
  happy: "lamp.face.happy",
  encourage: "lamp.face.encourage",
  thinking: "lamp.face.thinking",
  listening: "lamp.face.listening",
  sad: "lamp.face.sad",
  surprised: "lamp.face.surprised",
  sleep: "lamp.face.sleep",
};

const GESTURE_KEYS: Record<string, MessageKey> = {
  nod: "lamp.gesture.nod",
  shake: "lamp.gesture.shake",
  wave: "lamp.gesture.wave",
  point: "lamp.gesture.point",
  celebrate: "lamp.gesture.celebrate",
};

/** A plain-words note for an event from the lamp ("按了开始键"). */
export function eventLabel(t: TFunction, e: DeviceEvent): string {
  if (e === "touch") return t("lamp.event.touch");
  if (typeof e === "object" && "button" in e) return t(e.button === "stop" ? "lamp.event.stop" : "lamp.event.start");
  if (typeof e === "object" && "presence" in e) return t(e.presence ? "lamp.event.arrived" : "lamp.event.left");
  return "";
}

/** A simple SVG face for each expression on the lamp's LCD. */
export function LampFace({ expression }: { expression: Expression }) {
  const eyes = (() => {
    switch (expression) {
      case "sleep":
        return (
          <>
            <path d="M22 40 q6 5 12 0" />
            <path d="M46 40 q6 5 12 0" />
          </>
        );
      case "happy":
      case "encourage":
        return (
          <>
            <path d="M22 42 q6 -8 12 0" />
            <path d="M46 42 q6 -8 12 0" />
          </>
        );
      case "surprised":
        return (
          <>
            <circle cx="28" cy="38" r="5" />
            <circle cx="52" cy="38" r="5" />
          </>
        );
      case "thinking":
        return (
          <>
            <circle cx="28" cy="38" r="3" className="fill" />
            <path d="M46 36 h12" />
          </>
        );
      default:
        return (
          <>
            <circle cx="28" cy="38" r="3" className="fill" />
            <circle cx="52" cy="38" r="3" className="fill" />
          </>
        );
    }
  })();
  const mouth = (() => {
    switch (expression) {
      case "happy":
        return <path d="M26 54 q14 14 28 0" />;
      case "encourage":
        return <path d="M28 55 q12 8 24 0" />;
      case "sad":
        return <path d="M28 62 q12 -9 24 0" />;
      case "surprised":
        return <circle cx="40" cy="58" r="5" />;
      case "thinking":
        return <path d="M32 58 h16" />;
      case "listening":
        return <ellipse cx="40" cy="57" rx="6" ry="3" />;
      case "sleep":
        return <path d="M34 58 h12" />;
    }
  })();
  return (
    <svg viewBox="0 0 80 80" className="lamp-face-svg" aria-hidden="true">
      <rect x="4" y="4" width="72" height="72" rx="18" className="lamp-face-screen" />
      <g className="lamp-face-lines">
        {eyes}
        {mouth}
        {expression === "sleep" && (
          <text x="58" y="24" className="lamp-face-z">
            z
          </text>
        )}
      </g>
    </svg>
  );
}

interface LampPanelProps {
  state: LampState;
  /** Note of the last event seen, if any. */
  lastEvent?: string | null;
}

/**
 * The virtual lamp: light, face, arm, projector card and the lamp's own
 * buttons (start, stop, touch, presence). A press acts like the lamp's: on a
 * simulator the app hosts it is pressed there and comes back as the lamp's
 * event; start and stop drive the recording of an open voice practice.
 */
export function LampPanel({ state, lastEvent }: LampPanelProps) {
  const t = useT();
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const brightness = Math.min(100, Math.max(0, Math.round(state.light?.brightness ?? 0)));
  const tint = lightTint(state.light?.temperature_k ?? 4000);
  const gesture = armGesture(state.arm);
  const card = state.projector?.on ? state.projector.card : null;
  const expression = state.expression ?? "sleep";

  async function send(event: DeviceEvent) {
    setSending(true);
    setError(null);
    try {
      await api.lampPanelEvent(event);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setSending(false);
    }
  }

  return (
    <div className="lamp-panel" data-testid="lamp-panel" data-connection={state.connection}>
      <div className="lamp-stage">
        <div
          className="lamp-light"
          data-testid="lamp-light"
          data-brightness={brightness}
          data-temperature={state.light?.temperature_k}
          title={t("lamp.lightTitle", { brightness, kelvin: state.light?.temperature_k ?? 0 })}
          style={{
            background: `radial-gradient(circle, ${tint} 0%, transparent 70%)`,
            opacity: 0.15 + (0.85 * brightness) / 100,
          }}
        />
        <div className="lamp-face" data-testid="lamp-face" data-expression={expression} role="img" aria-label={t(FACE_KEYS[expression] ?? "lamp.face.happy")}>
          <LampFace expression={expression} />
        </div>
        <div
          className={gesture ? `lamp-arm lamp-arm-moving lamp-arm-${gesture}` : "lamp-arm"}
          data-testid="lamp-arm"
          data-pose={gesture ?? "rest"}
        >
          <span className="lamp-arm-icon" aria-hidden="true">
            <Icon name="arm" />
          </span>
          <span>{gesture ? t("lamp.armMoving", { gesture: t(GESTURE_KEYS[gesture] ?? "lamp.gesture.nod") }) : t("lamp.armRest")}</span>
        </div>
      </div>
      <p className="muted small">
        {t("lamp.lightTitle", { brightness, kelvin: state.light?.temperature_k ?? 0 })}
      </p>
      {card && (
        <div className="lamp-card" data-testid="lamp-card">
          <strong className="lamp-card-title">{card.title}</strong>
          {card.lines.map((l, i) => (
            <span key={i} className="lamp-card-line">
              {l}
            </span>
          ))}
        </div>
      )}
      <div className="lamp-buttons">
        <button
          type="button"
          className="btn btn-secondary"
          data-testid="lamp-button-start"
          disabled={sending}
          onClick={() => void send({ button: "start" })}
        >
          ▶ {t("lamp.start")}
        </button>
        <button
          type="button"
          className="btn btn-secondary"
          data-testid="lamp-button-stop"
          disabled={sending}
          onClick={() => void send({ button: "stop" })}
        >
          ■ {t("lamp.stop")}
        </button>
        <button
          type="button"
          className="btn btn-secondary"
          data-testid="lamp-button-touch"
          disabled={sending}
          onClick={() => void send("touch")}
        >
          <Icon name="hand" size={20} /> {t("lamp.touch")}
        </button>
        <button
          type="button"
          className="btn btn-secondary"
          data-testid="lamp-button-arrive"
          disabled={sending}
          onClick={() => void send({ presence: true })}
        >
          {t("lamp.arrive")}
        </button>
        <button
          type="button"
          className="btn btn-secondary"
          data-testid="lamp-button-leave"
          disabled={sending}
          onClick={() => void send({ presence: false })}
        >
          {t("lamp.leave")}
        </button>
      </div>
      {lastEvent && <p className="muted small">{lastEvent}</p>}
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
