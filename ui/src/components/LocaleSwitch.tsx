import type { Locale } from "../api";
import { useLocale, useT } from "../i18n";

/** Two-button language switch. The header instance carries the e2e hooks `locale-zh` / `locale-en`. */
export function LocaleSwitch({ testIdPrefix = "locale", large = false }: { testIdPrefix?: string; large?: boolean }) {
  const t = useT();
  const { locale, setLocale } = useLocale();
  const options: { value: Locale; label: string; id: string }[] = [
    { value: "zh-CN", label: t("locale.zh"), id: `${testIdPrefix}-zh` },
    { value: "en", label: t("locale.en"), id: `${testIdPrefix}-en` },
  ];
  return (
    <div className={large ? "segmented segmented-large" : "segmented"} role="group" aria-label={t("locale.label")}>
      {options.map((o) => (
        <button
          key={o.value}
          type="button"
          data-testid={o.id}
          className="segmented-item"
          aria-pressed={locale === o.value}
          lang={o.value}
          onClick={() => {
            if (locale !== o.value) void setLocale(o.value);
          }}
        >
          {o.label}
        </button>
      ))}
    </div>
  );
}
