/**
 * A teacher's re-ask on screen: which lines of a verdict the child may say
 * again (each once; the core says which), and a line's number as a teacher
 * says it in Chinese (第二句).
 */
import type { PracticeResult, PracticeState } from "../api";

/** The Chinese reading of a line number (1–99; larger ones as digits). */
export function zhLineNumber(n: number): string {
  const digits = "零一二三四五六七八九";
  if (!Number.isInteger(n) || n < 1 || n > 99) return String(n);
  if (n < 10) return digits[n];
  const tens = Math.floor(n / 10);
  const ones = n % 10;
  return `${tens === 1 ? "" : digits[tens]}十${ones === 0 ? "" : digits[ones]}`;
}

/** The lines (1-based) this verdict asks to hear again, with their text. */
export function linesToSayAgain(result: PracticeResult): { line: number; text: string }[] {
  return (result.lines_to_say_again ?? [])
    .filter((line) => line >= 1 && line <= result.lines.length)
    .map((line) => ({ line, text: result.lines[line - 1] }));
}

export type RetakingState = Extract<PracticeState, { state: "retaking" }>;

/** The verdict a retake came from, to return to when it ends without a take. */
export function verdictBefore(s: RetakingState): PracticeState {
  return s.passed
    ? { state: "done", attempt_id: s.attempt_id, accuracy: s.accuracy }
    : { state: "feedback", attempt_id: s.attempt_id, accuracy: s.accuracy, passed: false };
}
