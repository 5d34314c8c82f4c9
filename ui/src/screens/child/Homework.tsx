import { useRef } from "react";
import type { HomeworkCard } from "../../api";
import { Icon } from "../../components/Icon";
import { errorText } from "../../errors";
import { useT } from "../../i18n";

/** At most this many photos, each at most this large (the core's limits; checked here too so a huge file is never sent). */
export const MAX_PHOTOS = 4;
export const MAX_PHOTO_BYTES = 10 * 1024 * 1024;

/** Where the homework help is: nothing yet → checking the photos → the card, or an error in plain words. */
export type HomeworkState =
  | { name: "idle" }
  | { name: "checking" }
  | { name: "card"; card: HomeworkCard }
  | { name: "error"; code: string | null; message: string };

/** The words the card's buttons say through the one entry (the homework walk understands them in either language). */
export const HOMEWORK_REPLIES = {
  moreHint: "再给个提示",
  gotIt: "我懂了",
} as const;

/**
 * Why picked files cannot be sent (too many, too large), as the coded error
 * table says it; null when they can go. The core checks again, by the bytes.
 */
export function refusePhotos(files: File[]): { code: string; message: string } | null {
  const refuse = (code: string) => ({ code, message: errorText({ code, message: code, params: {} }) });
  if (files.length > MAX_PHOTOS) return refuse("homework.too_many_photos");
  if (files.some((f) => f.size > MAX_PHOTO_BYTES)) return refuse("homework.photo_too_large");
  return null;
}

/**
 * The camera button: picks (or, on a tablet, takes) photos of a worksheet
 * with the webview's own file input — no dialog plugin needed.
 */
export function PhotoButton({ disabled, onPhotos }: { disabled: boolean; onPhotos: (files: File[]) => void }) {
  const t = useT();
  const input = useRef<HTMLInputElement>(null);
  return (
    <>
      <input
        ref={input}
        type="file"
        accept="image/*"
        capture="environment"
        multiple
        hidden
        data-testid="homework-photo-input"
        aria-label={t("homework.photoLabel")}
        onChange={(e) => {
          const files = Array.from(e.target.files ?? []);
          e.target.value = "";
          if (files.length > 0) onPhotos(files);
        }}
      />
      <button
        type="button"
        className="btn btn-secondary"
        data-testid="homework-photo"
        disabled={disabled}
        onClick={() => input.current?.click()}
      >
        <Icon name="camera" /> {t("homework.photo")}
      </button>
    </>
  );
}

/**
 * The homework card: how the sheet went, then the mistake in front of the
 * child — the hint first, the explanation after 再给个提示, the correct
 * answer only when the core put it in (a parent allows it). 下一题 /
 * 再给个提示 / 我懂了 go through `onSay` like typed words; 下一题 is the
 * screen's `next` button (`onButton`), which the entry reads as 下一题 here.
 */
export function HomeworkPanel({
  state,
  busy,
  onSay,
  onButton,
}: {
  state: HomeworkState;
  busy: boolean;
  onSay: (words: string) => void;
  /** A screen button through the one entry (`screen:next`: the scene's 下一题). */
  onButton: (button: string) => void;
}) {
  const t = useT();
  if (state.name === "idle") return null;
  if (state.name === "checking") {
    return (
      <section className="card homework-card" data-testid="homework-card" data-state="checking" aria-busy="true">
        <p className="muted" aria-live="polite">
          {t("homework.checking")}
        </p>
      </section>
    );
  }
  if (state.name === "error") {
    return (
      <section className="card homework-card" data-testid="homework-card" data-state="error">
        <p className="field-error" role="alert" data-testid="homework-error" data-code={state.code ?? undefined}>
          {state.message}
        </p>
      </section>
    );
  }
  const c = state.card;
  const onMistake = c.step === "mistake" && c.question !== null;
  return (
    <section className="card homework-card" data-testid="homework-card" data-state="card" data-step={c.step}>
      <h2 className="section-title">
        {t("homework.title")}
        {c.subject && <span className="tag">{c.subject}</span>}
      </h2>
      <p data-testid="homework-count">{t("homework.count", { total: c.total, correct: c.correct, mistakes: c.mistakes })}</p>
      {c.marks.length > 0 && (
        <ol className="homework-marks" data-testid="homework-marks">
          {c.marks.map((m, i) => (
            <li key={i} data-testid="homework-mark" data-correct={m.correct ? "true" : "false"}>
              <span aria-label={m.correct ? t("homework.right") : t("homework.wrong")}>{m.correct ? "✓" : "✗"}</span>{" "}
              {m.question} <strong>{m.child_answer}</strong>
            </li>
          ))}
        </ol>
      )}
      {onMistake && (
        <div className="homework-mistake" data-testid="homework-mistake">
          {c.mistake_number !== null && (
            <p className="muted">{t("homework.mistakeOf", { n: c.mistake_number, mistakes: c.mistakes })}</p>
          )}
          <p className="homework-question">
            <span className="tag tag-warn">{t("homework.wrong")}</span>{" "}
            <span data-testid="homework-question">{c.question}</span>
          </p>
          {c.child_answer !== null && <p>{t("homework.yourAnswer", { answer: c.child_answer })}</p>}
          {c.hint && (
            <p data-testid="homework-hint">
              <strong>{t("homework.hint")}</strong>
              {c.hint}
            </p>
          )}
          {c.explanation && (
            <p data-testid="homework-explanation">
              <strong>{t("homework.explanation")}</strong>
              {c.explanation}
            </p>
          )}
          {c.correct_answer !== null && (
            <p data-testid="homework-answer">
              <strong>{t("homework.answer")}</strong>
              {c.correct_answer}
            </p>
          )}
        </div>
      )}
      {(onMistake || c.step === "redo") && (
        <div className="form-actions">
          <button type="button" className="btn btn-secondary" data-testid="homework-more-hint" disabled={busy} onClick={() => onSay(HOMEWORK_REPLIES.moreHint)}>
            {t("homework.moreHint")}
          </button>
          <button type="button" className="btn btn-secondary" data-testid="homework-got-it" disabled={busy} onClick={() => onSay(HOMEWORK_REPLIES.gotIt)}>
            {t("homework.gotIt")}
          </button>
          <button type="button" className="btn btn-primary" data-testid="homework-next" disabled={busy} onClick={() => onButton("screen:next")}>
            {t("homework.next")}
          </button>
        </div>
      )}
    </section>
  );
}
