/**
 * Tiny i18n: two string tables (`locales/zh-CN.ts`, `locales/en.ts`), a
 * React context and `useT()`.
 *
 * Every string a user can see lives in these tables. zh-CN is the default;
 * the English table must have exactly the same keys (checked by the type
 * system and by i18n.test.tsx).
 */
import { createContext, createElement, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import * as api from "./api";
import type { Locale } from "./api";
import { errorText, setErrorLanguage } from "./errors";
import { zhCN, type MessageKey, type Messages } from "./locales/zh-CN";
import { en } from "./locales/en";

export type { MessageKey, Messages };

export const tables: Record<Locale, Messages> = { "zh-CN": zhCN, en };
export const LOCALES: Locale[] = ["zh-CN", "en"];
export const DEFAULT_LOCALE: Locale = "zh-CN";

export type Vars = Record<string, string | number>;
export type TFunction = (key: MessageKey, vars?: Vars) => string;

/** Look a key up in one table and fill `{name}` placeholders. */
export function translate(locale: Locale, key: MessageKey, vars?: Vars): string {
  const table = tables[locale] ?? tables[DEFAULT_LOCALE];
  const text = table[key] ?? tables[DEFAULT_LOCALE][key] ?? key;
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : whole,
  );
}

export function isLocale(value: unknown): value is Locale {
  return value === "zh-CN" || value === "en";
}

/** The `grade.N` key for a grade 1–6. */
export function gradeKey(grade: number): MessageKey {
  return `grade.${grade}` as MessageKey;
}

/** "二年级" / "Grade 2", or null for a missing or out-of-range grade. */
export function gradeLabel(t: TFunction, grade: number | null | undefined): string | null {
  if (typeof grade !== "number" || !Number.isInteger(grade) || grade < 1 || grade > 6) return null;
  return t(gradeKey(grade));
}

interface I18nValue {
  locale: Locale;
  t: TFunction;
  /** Switch the UI language and save the choice through `locale_set`. */
  setLocale: (locale: Locale) => Promise<void>;
  /** Switch the UI language without saving it (used at start-up). */
  adoptLocale: (locale: Locale) => void;
  /** Set when saving the last choice failed. */
  saveError: string | null;
}

const I18nContext = createContext<I18nValue | null>(null);

export function I18nProvider({ initialLocale = DEFAULT_LOCALE, children }: { initialLocale?: Locale; children?: ReactNode }) {
  const [locale, setLocaleState] = useState<Locale>(initialLocale);
  const [saveError, setSaveError] = useState<string | null>(null);

  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);

  const t = useCallback<TFunction>((key, vars) => translate(locale, key, vars), [locale]);
  // errorText runs outside React (api.ts); it translates the core's error codes
  // into the language shown now. Set while rendering, so it holds before any
  // child's effect can call the api; setting it again is harmless.
  setErrorLanguage(locale, t);

  const setLocale = useCallback(async (next: Locale) => {
    setLocaleState(next);
    setSaveError(null);
    try {
      await api.localeSet(next);
    } catch (e) {
      setSaveError(errorText(e));
    }
  }, []);

  const adoptLocale = useCallback((next: Locale) => setLocaleState(next), []);

  const value = useMemo<I18nValue>(
    () => ({ locale, t, setLocale, adoptLocale, saveError }),
    [locale, t, setLocale, adoptLocale, saveError],
  );
  return createElement(I18nContext.Provider, { value }, children);
}

function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (!value) throw new Error("useT/useLocale must be used inside <I18nProvider>");
  return value;
}

export function useT(): TFunction {
  return useI18n().t;
}

export function useLocale() {
  const { locale, setLocale, adoptLocale, saveError } = useI18n();
  return { locale, setLocale, adoptLocale, saveError };
}
