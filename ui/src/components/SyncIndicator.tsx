import { useEffect, useState } from "react";
import * as api from "../api";
import type { Locale, SyncView } from "../api";
import { formatLockTime } from "../errors";
import { useLocale, useT } from "../i18n";
import "./sync.css";

/** What the header says about the family's sync. */
export type SyncState = { state: "synced"; at: string | null } | { state: "offline" } | { state: "pending"; count: number };

/** How often the header looks again (the background loop sends within 10 s). */
export const SYNC_LOOK_EVERY_MS = 10_000;

const EVENT = "deskmate:sync";

/** Tells the header at once that the sync state changed (`null`: look again). */
export function announceSync(view: SyncView | null) {
  window.dispatchEvent(new CustomEvent<SyncView | null>(EVENT, { detail: view }));
}

/** Nothing for a device that does not sync; else offline (the last round failed), changes waiting, or synced. */
export function syncState(view: SyncView | null | undefined): SyncState | null {
  if (!view || !view.signed_in || !view.enabled) return null;
  if (view.last_error) return { state: "offline" };
  if (view.pending > 0 || !view.last_sync_at) return { state: "pending", count: view.pending };
  return { state: "synced", at: view.last_sync_at };
}

/** "11-27 14:05" in the device's time zone (`timeZone` for tests). */
export function formatSyncTime(at: string, locale: Locale, timeZone?: string): string | null {
  const when = new Date(at);
  if (Number.isNaN(when.getTime())) return null;
  return new Intl.DateTimeFormat(locale, {
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    timeZone,
  }).format(when);
}

/** The offline / synced dot in every screen's header, for a device that syncs. */
export function SyncIndicator() {
  const t = useT();
  const { locale } = useLocale();
  const [view, setView] = useState<SyncView | null>(null);

  useEffect(() => {
    let alive = true;
    const look = async () => {
      try {
        const v = await api.syncView();
        if (alive) setView(v ?? null);
      } catch {
        // No sync state to show (outside the app window, or the core is busy).
      }
    };
    const heard = (e: Event) => {
      const detail = (e as CustomEvent<SyncView | null>).detail;
      if (detail) setView(detail);
      else void look();
    };
    void look();
    const timer = window.setInterval(() => void look(), SYNC_LOOK_EVERY_MS);
    window.addEventListener(EVENT, heard);
    return () => {
      alive = false;
      window.clearInterval(timer);
      window.removeEventListener(EVENT, heard);
    };
  }, []);

  const s = syncState(view);
  if (!s) return null;
  // Short in the header (it shares the bar with the buttons); the time of
  // the last sync is in the title.
  const label =
    s.state === "offline"
      ? t("sync.indicator.offline")
      : s.state === "pending"
        ? t("sync.indicator.pending", { count: String(s.count) })
        : t("sync.indicator.synced");
  const long = s.state === "synced" && s.at ? t("sync.indicator.syncedAt", { time: formatLockTime(s.at, locale) ?? "" }) : label;
  return (
    <span className="sync-indicator" data-testid="sync-indicator" data-state={s.state} role="status" title={t("sync.indicator.title", { state: long })}>
      {label}
    </span>
  );
}
