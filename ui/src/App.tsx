import { useCallback, useEffect, useState } from "react";
import * as api from "./api";
import type { AppStatus, Profile } from "./api";
import { Header } from "./components/Header";
import { errorText } from "./errors";
import { isLocale, useLocale, useT } from "./i18n";
import { ChildHome } from "./screens/ChildHome";
import { ParentHome } from "./screens/ParentHome";
import { Setup } from "./screens/Setup";
import { Welcome } from "./screens/Welcome";

type Screen =
  | { name: "loading" }
  | { name: "error"; message: string }
  | { name: "setup" }
  | { name: "welcome" }
  | { name: "child"; profile: Profile }
  | { name: "parent"; profile: Profile };

/** Screen switcher. Reads `app_status` once at start (first run? which language?). */
export function App() {
  const t = useT();
  const { adoptLocale } = useLocale();
  const [screen, setScreen] = useState<Screen>({ name: "loading" });
  const [status, setStatus] = useState<AppStatus | null>(null);

  const start = useCallback(async () => {
    setScreen({ name: "loading" });
    try {
      const s = await api.appStatus();
      setStatus(s);
      if (isLocale(s.locale)) adoptLocale(s.locale);
      setScreen(s.first_run ? { name: "setup" } : { name: "welcome" });
    } catch (e) {
      setScreen({ name: "error", message: errorText(e) });
    }
  }, [adoptLocale]);

  useEffect(() => {
    void start();
  }, [start]);

  const toWelcome = useCallback(() => setScreen({ name: "welcome" }), []);

  switch (screen.name) {
    case "loading":
      return (
        <div className="screen">
          <Header />
          <main className="content center">
            <p className="muted" role="status">
              {t("app.loading")}
            </p>
          </main>
        </div>
      );
    case "error":
      return (
        <div className="screen">
          <Header />
          <main className="content center">
            <div className="banner banner-error" role="alert" data-testid="start-error">
              <span>{t("app.startError", { error: screen.message })}</span>
              <button type="button" className="btn btn-secondary" onClick={() => void start()}>
                {t("app.retry")}
              </button>
            </div>
          </main>
        </div>
      );
    case "setup":
      return <Setup onDone={toWelcome} />;
    case "welcome":
      return (
        <Welcome
          onChild={(profile) => setScreen({ name: "child", profile })}
          onParent={(profile) => setScreen({ name: "parent", profile })}
        />
      );
    case "child":
      return <ChildHome profile={screen.profile} onExit={toWelcome} />;
    case "parent":
      return <ParentHome profile={screen.profile} status={status} onLock={toWelcome} />;
  }
}
