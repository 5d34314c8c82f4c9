import type { ReactNode } from "react";
import { useLocale, useT } from "../i18n";
import { LocaleSwitch } from "./LocaleSwitch";
import { SyncIndicator } from "./SyncIndicator";

interface HeaderProps {
  /** Shows the back button (`data-testid="back-button"`) when given. */
  onBack?: () => void;
  backLabel?: string;
  /** Extra controls at the right end, before the language switch. */
  extra?: ReactNode;
}

export function Header({ onBack, backLabel, extra }: HeaderProps) {
  const t = useT();
  const { saveError } = useLocale();
  return (
    <header className="app-header">
      <div className="app-header-bar">
        <div className="app-header-start">
          {onBack && (
            <button type="button" className="btn btn-ghost" data-testid="back-button" onClick={onBack}>
              <span aria-hidden="true">←</span> {backLabel ?? t("common.back")}
            </button>
          )}
        </div>
        <div className="app-title">
          <span className="app-logo" aria-hidden="true">
            {t("app.logo")}
          </span>
          <span>{t("app.name")}</span>
        </div>
        <div className="app-header-end">
          {extra}
          <SyncIndicator />
          <LocaleSwitch />
        </div>
      </div>
      {saveError && (
        <p className="banner banner-error" role="alert">
          {t("locale.saveError", { error: saveError })}
        </p>
      )}
    </header>
  );
}
