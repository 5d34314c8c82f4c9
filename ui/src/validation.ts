import type { MessageKey } from "./i18n";

export const PIN_PATTERN = /^\d{4,8}$/;
export const GRADES = [1, 2, 3, 4, 5, 6] as const;

/** Returns the i18n key of the problem, or null when the name is fine. */
export function checkName(name: string): MessageKey | null {
  return name.trim() ? null : "err.nameRequired";
}

export function checkPin(pin: string): MessageKey | null {
  return PIN_PATTERN.test(pin) ? null : "err.pinFormat";
}

export function checkPinRepeat(pin: string, repeat: string): MessageKey | null {
  return pin === repeat ? null : "err.pinMismatch";
}

export function checkGrade(grade: string): MessageKey | null {
  const n = Number(grade);
  return Number.isInteger(n) && n >= 1 && n <= 6 ? null : "err.gradeRequired";
}

/** Keep only digits, at most 8 of them (for PIN inputs). */
export function digitsOnly(value: string): string {
  return value.replace(/\D/g, "").slice(0, 8);
}
