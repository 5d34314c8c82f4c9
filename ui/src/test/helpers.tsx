import { render } from "@testing-library/react";
import type { ReactElement } from "react";
import type { Check, Locale, Material, Profile } from "../api";
import { I18nProvider } from "../i18n";

export function renderWithI18n(ui: ReactElement, locale: Locale = "zh-CN") {
  return render(<I18nProvider initialLocale={locale}>{ui}</I18nProvider>);
}

const STAMP = "2025-01-01T00:00:00Z";

export function profile(over: Partial<Profile> & Pick<Profile, "id" | "kind" | "name">): Profile {
  return {
    grade: null,
    locale: "zh-CN",
    time_zone: "Asia/Shanghai",
    has_pin: over.kind === "parent",
    created_at: STAMP,
    updated_at: STAMP,
    ...over,
  };
}

export function material(over: Partial<Material> & Pick<Material, "id" | "title" | "body">): Material {
  return {
    slug: null,
    source: "builtin",
    lang: "zh",
    author: null,
    dynasty: null,
    grade: null,
    level: null,
    created_at: STAMP,
    updated_at: STAMP,
    ...over,
  };
}

export function check(over: Partial<Check> & Pick<Check, "name" | "status">): Check {
  return { detail: "", fix: null, ...over };
}
