import type { Lang, Material } from "./api";
import { translate } from "./i18n";

/**
 * "李白（唐）" / "Jane Taylor", or null without an author. Punctuated in the
 * material's own language, so a Chinese poem keeps full-width brackets in the
 * English UI too.
 */
export function byline(m: Pick<Material, "author" | "dynasty" | "lang">): string | null {
  const author = m.author?.trim();
  const dynasty = m.dynasty?.trim();
  if (author && dynasty) return translate(m.lang === "en" ? "en" : "zh-CN", "material.byline", { author, dynasty });
  return author || null;
}

/** The first non-empty line of a text. */
export function firstLine(body: string): string {
  return body.split(/\r?\n/).find((l) => l.trim())?.trim() ?? "";
}

/** The `lang` attribute for a material's text. */
export function materialLangAttr(lang: Lang | string): string {
  return lang === "en" ? "en" : "zh-CN";
}
