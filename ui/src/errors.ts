/**
 * Turn whatever a rejected promise carried into text we can show — in the
 * user's language when the core said what went wrong with a code.
 *
 * The core rejects the family and library commands with `{code, message,
 * params}` (src-tauri's `CmdError`): `code` is stable (`pin.locked`,
 * `profile.name_taken`, …), `message` is the core's English text, `params`
 * hold what a sentence needs (`until` is an RFC 3339 UTC time, shown here in
 * local time). Known codes are translated through the i18n tables; unknown
 * ones, plain strings and JS `Error`s are shown by their message.
 *
 * `errorText` is called outside React (api.ts turns every rejection into a
 * string with it), so the `I18nProvider` tells this module the current
 * language with `setErrorLanguage`.
 */
import type { Locale } from "./api";
import type { MessageKey, Vars } from "./i18n";

/** A command's failure as the core sends it. */
export interface CoreError {
  code: string;
  message: string;
  params?: Record<string, unknown>;
}

type Translate = (key: MessageKey, vars?: Vars) => string;

let language: { locale: Locale; t: Translate } | null = null;

/** Called by the `I18nProvider` whenever the UI language changes. */
export function setErrorLanguage(locale: Locale, t: Translate) {
  language = { locale, t };
}

export function isCoreError(e: unknown): e is CoreError {
  return (
    !!e &&
    typeof e === "object" &&
    typeof (e as { code?: unknown }).code === "string" &&
    typeof (e as { message?: unknown }).message === "string"
  );
}

/** "14:05": the clock time in the device's time zone (or `timeZone`), 24-hour in both languages. */
export function formatLockTime(until: string, locale: Locale, timeZone?: string): string | null {
  const when = new Date(until);
  if (Number.isNaN(when.getTime())) return null;
  return new Intl.DateTimeFormat(locale, { hour: "2-digit", minute: "2-digit", hourCycle: "h23", timeZone }).format(when);
}

function text(v: unknown): string | null {
  return typeof v === "string" || typeof v === "number" ? String(v) : null;
}

/** The translated sentence for a coded core error, or null when the code (or a value it needs) is unknown. */
export function localizeCoreError(e: CoreError, locale: Locale, t: Translate): string | null {
  const p = e.params ?? {};
  switch (e.code) {
    case "pin.wrong": {
      const left = typeof p.tries_left === "number" ? p.tries_left : null;
      if (left === null) return null;
      return left === 1 ? t("core.pin.wrongLast") : t("core.pin.wrong", { tries_left: left });
    }
    case "pin.locked": {
      const until = typeof p.until === "string" ? formatLockTime(p.until, locale) : null;
      return until ? t("core.pin.locked", { until }) : null;
    }
    case "profile.name_taken": {
      const name = text(p.name);
      return name === null ? null : t("core.profile.nameTaken", { name });
    }
    case "material.body_empty":
      return t("core.material.bodyEmpty");
    case "material.body_too_long": {
      const chars = text(p.chars);
      const max = text(p.max);
      return chars === null || max === null ? null : t("core.material.bodyTooLong", { chars, max });
    }
    case "db.schema_too_new": {
      const found = text(p.found);
      const known = text(p.known);
      return found === null || known === null ? null : t("core.db.schemaTooNew", { found, known });
    }
    case "data_dir.unusable":
    case "data_dir.not_writable": {
      const path = text(p.path);
      return path === null ? null : t("core.dataDir.unusable", { path });
    }
    case "db.not_deskmate": {
      const path = text(p.path);
      return path === null ? null : t("core.db.notDeskmate", { path });
    }
    default:
      return null;
  }
}

export function errorText(e: unknown): string {
  if (typeof e === "string") return e;
  if (isCoreError(e)) {
    const localized = language ? localizeCoreError(e, language.locale, language.t) : null;
    return localized ?? e.message;
  }
  if (e instanceof Error) return e.message;
  if (e && typeof e === "object" && "message" in e && typeof (e as { message: unknown }).message === "string") {
    return (e as { message: string }).message;
  }
  try {
    return JSON.stringify(e);
  } catch {
    return String(e);
  }
}
