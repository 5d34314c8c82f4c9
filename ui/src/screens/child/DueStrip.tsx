import { useCallback, useEffect, useRef, useState } from "react";
import * as api from "../../api";
import type { DueReview } from "../../api";
import { errorText } from "../../errors";
import { subscribe } from "../../events";
import { useT } from "../../i18n";
import { materialLangAttr } from "../../materialText";

/** Reviews due today, most overdue first (the order `reviews_due` gives; re-sorted to be sure). */
export function sortDue(list: DueReview[]): DueReview[] {
  return [...list].sort((a, b) => (b.overdue_days ?? 0) - (a.overdue_days ?? 0));
}

/**
 * "今天要复习 / Due today": a strip of the child's due reviews above the
 * library. `onLoaded` gets each list it loads (most overdue first), so the
 * library can put those materials first without asking again.
 */
export function DueStrip({
  profileId,
  onOpen,
  onLoaded,
}: {
  profileId: string;
  onOpen: (review: DueReview) => void;
  onLoaded?: (due: DueReview[]) => void;
}) {
  const t = useT();
  const [due, setDue] = useState<DueReview[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [token, setToken] = useState(0);

  const reload = useCallback(() => setToken((n) => n + 1), []);
  const onLoadedRef = useRef(onLoaded);
  onLoadedRef.current = onLoaded;

  useEffect(() => {
    let stale = false;
    (async () => {
      try {
        const list = await api.reviewsDue(profileId);
        if (!stale) {
          const sorted = sortDue(Array.isArray(list) ? list : []);
          setDue(sorted);
          setError(null);
          onLoadedRef.current?.(sorted);
        }
      } catch (e) {
        if (!stale) setError(errorText(e));
      }
    })();
    return () => {
      stale = true;
    };
  }, [profileId, token]);

  useEffect(
    () =>
      subscribe("reviews://due", (e) => {
        if (e.profile_id === profileId) reload();
      }),
    [profileId, reload],
  );

  if (error) {
    return (
      <p className="muted small due-error" data-testid="due-error">
        {t("due.error", { error })}
      </p>
    );
  }
  if (!due || due.length === 0) return null;
  return (
    <section className="due-strip card" aria-labelledby="due-title" data-testid="due-strip">
      <h2 id="due-title" className="section-title">
        {t("due.title")} <span className="tag tag-warn">{due.length}</span>
      </h2>
      <ul className="due-list">
        {due.map((d) => (
          <li key={d.material_id}>
            <button
              type="button"
              className={d.overdue_days > 0 ? "due-card is-overdue" : "due-card"}
              data-testid="due-review"
              data-material-id={d.material_id}
              onClick={() => onOpen(d)}
            >
              <span className="due-title" lang={materialLangAttr(d.lang)}>
                {d.title}
              </span>
              <span className="due-when">
                {d.overdue_days > 0 ? t("due.overdue", { days: d.overdue_days }) : t("due.today")}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
