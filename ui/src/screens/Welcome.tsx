import { useCallback, useEffect, useState } from "react";
import * as api from "../api";
import type { Profile } from "../api";
import { Header } from "../components/Header";
import { avatarInitial } from "../initial";
import { errorText } from "../errors";
import { gradeLabel, useT } from "../i18n";
import { PinDialog } from "./PinDialog";

interface WelcomeProps {
  onChild: (profile: Profile) => void;
  onParent: (profile: Profile) => void;
}

/** Profile picker. Children go straight in; parents go through the PIN dialog. */
export function Welcome({ onChild, onParent }: WelcomeProps) {
  const t = useT();
  const [profiles, setProfiles] = useState<Profile[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [askPinFor, setAskPinFor] = useState<Profile | null>(null);

  const load = useCallback(async () => {
    setError(null);
    try {
      setProfiles(await api.profilesList());
    } catch (e) {
      setError(errorText(e));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  // Children first: they are the main users of this screen.
  const sorted = profiles ? [...profiles].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "child" ? -1 : 1)) : [];
  const cancelPin = useCallback(() => setAskPinFor(null), []);

  return (
    <div className="screen" data-testid="welcome">
      <Header />
      <main className="content">
        <h1 className="page-title">{t("welcome.title")}</h1>
        <p className="page-intro">{t("welcome.subtitle")}</p>
        {error && (
          <div className="banner banner-error" role="alert">
            <span>{t("welcome.loadError", { error })}</span>
            <button type="button" className="btn btn-secondary" onClick={() => void load()}>
              {t("app.retry")}
            </button>
          </div>
        )}
        {profiles === null && !error && <p className="muted">{t("common.loading")}</p>}
        {profiles !== null && profiles.length === 0 && <p className="muted">{t("welcome.empty")}</p>}
        <ul className="profile-grid">
          {sorted.map((p) => (
            <li key={p.id}>
              <button
                type="button"
                className={`profile-card profile-card-${p.kind}`}
                data-testid="profile-card"
                data-kind={p.kind}
                data-name={p.name}
                onClick={() => (p.kind === "parent" ? setAskPinFor(p) : onChild(p))}
              >
                <span className="avatar" aria-hidden="true">
                  {avatarInitial(p.name)}
                </span>
                <span className="profile-name">{p.name}</span>
                <span className="profile-meta">
                  {p.kind === "child"
                    ? (gradeLabel(t, p.grade) ?? t("kind.child"))
                    : `${t("kind.parent")} · ${t("welcome.parentHint")}`}
                </span>
              </button>
            </li>
          ))}
        </ul>
      </main>
      {askPinFor && <PinDialog profile={askPinFor} onUnlocked={onParent} onCancel={cancelPin} />}
    </div>
  );
}
