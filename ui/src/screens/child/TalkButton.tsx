import { useEffect, useRef, useState } from "react";
import * as api from "../../api";
import type { SayResponse, Talking } from "../../api";
import { Icon } from "../../components/Icon";
import { useLocale, useT } from "../../i18n";

/** Where the talk button is: idle → listening (with a stop) → thinking → answered, or an error in plain words. */
export type TalkState =
  | { name: "idle" }
  | { name: "listening"; level: number; partial: string }
  | { name: "thinking" }
  | { name: "answered"; heard: string | null }
  | { name: "error"; code: string | null; message: string };

/** The next state on a progress report from the core (the level and text so far, then thinking). */
export function onTalking(state: TalkState, event: Talking): TalkState {
  if (event.kind === "thinking") return { name: "thinking" };
  if (state.name !== "listening") return state;
  if (event.kind === "level") return { ...state, level: Math.max(0, Math.min(1, event.level)) };
  return { ...state, partial: event.text };
}

/**
 * The talk button on the child's home: one press opens the microphone (the
 * same one, and the same end of speech, as a spoken recitation), the child
 * speaks, and what was said goes through the one entry. Listening stops on
 * its own when the child falls silent, or at the stop button. `onAnswer`
 * gets the entry's response (a recitation it opens, the plan, a reply to
 * show); a response whose `error` says nothing usable was heard, or no
 * microphone works, is said here in plain words instead.
 */
export function TalkButton({ profileId, onAnswer }: { profileId: string; onAnswer: (r: SayResponse) => void }) {
  const t = useT();
  const { locale } = useLocale();
  const [state, setState] = useState<TalkState>({ name: "idle" });
  const onAnswerRef = useRef(onAnswer);
  onAnswerRef.current = onAnswer;
  const live = useRef(true);
  useEffect(() => {
    live.current = true;
    return () => {
      live.current = false;
    };
  }, []);

  async function talk() {
    setState({ name: "listening", level: 0, partial: "" });
    try {
      const r = await api.talk(profileId, (event) => {
        if (live.current) setState((s) => onTalking(s, event));
      });
      if (!live.current) return;
      if (r.error) {
        setState({ name: "error", code: r.error.code, message: locale === "en" ? r.text_en : r.text_zh });
        return;
      }
      setState({ name: "answered", heard: r.heard });
      onAnswerRef.current(r);
    } catch (e) {
      if (live.current) setState({ name: "error", code: null, message: String(e) });
    }
  }

  async function stop() {
    try {
      await api.talkStop(profileId);
    } catch {
      // Listening ends on its own at silence anyway.
    }
  }

  const listening = state.name === "listening";
  return (
    <div className="talk" data-testid="talk" data-state={state.name}>
      {listening ? (
        <button type="button" className="btn btn-primary talk-button is-listening" data-testid="talk-stop" onClick={() => void stop()}>
          <span className="record-stop-square" aria-hidden="true" /> {t("talk.stop")}
        </button>
      ) : (
        <button
          type="button"
          className="btn btn-primary talk-button"
          data-testid="talk-button"
          disabled={state.name === "thinking"}
          onClick={() => void talk()}
        >
          <Icon name="mic" /> {t("talk.start")}
        </button>
      )}
      <p className="talk-status" aria-live="polite" data-testid="talk-status">
        {state.name === "listening" && (state.partial || t("talk.listening"))}
        {state.name === "thinking" && t("talk.thinking")}
        {state.name === "answered" && state.heard && t("talk.heard", { text: state.heard })}
      </p>
      {listening && (
        <div
          className="level-meter talk-level"
          data-testid="talk-level"
          role="meter"
          aria-label={t("practice.level")}
          aria-valuemin={0}
          aria-valuemax={100}
          aria-valuenow={Math.round(state.level * 100)}
        >
          <span className="level-fill" style={{ width: `${Math.round(state.level * 100)}%` }} />
        </div>
      )}
      {state.name === "error" && (
        <p className="field-error" role="alert" data-testid="talk-error" data-code={state.code ?? undefined}>
          {state.message}
        </p>
      )}
    </div>
  );
}
