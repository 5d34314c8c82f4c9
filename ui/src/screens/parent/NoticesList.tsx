import { useState } from "react";
import * as family from "../../familyApi";
import type { Notice, ReplacedReply } from "../../protocol";
import { errorText } from "../../errors";
import { useT, type MessageKey, type TFunction } from "../../i18n";
import { useRecords } from "./useRecords";

const LIMIT_KEYS: Record<string, MessageKey> = {
  chat_minutes: "limits.chatMinutes",
  model_calls: "limits.modelCalls",
  cost_usd: "limits.cost",
};

/** The kept rules' categories (crates/orchestrator/safety/unsafe_rules.txt). */
const REASON_KEYS: Record<string, MessageKey> = {
  personal_details: "notices.reason.personal_details",
  contact: "notices.reason.contact",
  self_harm: "notices.reason.self_harm",
  violence_weapons: "notices.reason.violence_weapons",
  sexual: "notices.reason.sexual",
  drugs_alcohol: "notices.reason.drugs_alcohol",
  dangerous_acts: "notices.reason.dangerous_acts",
  hate_insults: "notices.reason.hate_insults",
};

/**
 * Why a reply was replaced, in words: `rule:<category>` (the kept rules) or
 * `moderation:<category>` (the moderation endpoint, whose categories are
 * its own and shown as sent).
 */
export function reasonText(t: TFunction, reason: string): string {
  const [source, category = ""] = reason.split(":", 2);
  const key = REASON_KEYS[category];
  if (source === "rule" && key) return t(key);
  if (source === "moderation") return t("notices.reason.moderation", { category });
  return reason;
}

/** What a notice says, in the parent's language, from its kind and detail. */
export function noticeText(t: TFunction, n: Notice): string {
  const d = (n.detail ?? {}) as Record<string, unknown>;
  const s = (k: string) => (d[k] == null ? "" : String(d[k]));
  switch (n.kind) {
    case "limit_reached": {
      const key = LIMIT_KEYS[s("limit")];
      return t("notices.limit", { limit: key ? t(key) : s("limit"), used: s("used"), allowed: s("allowed") });
    }
    case "quiet_hours":
      return t("notices.quiet", { from: s("from"), to: s("to") });
    case "reply_replaced": {
      const reasons = Array.isArray(d.reasons) ? (d.reasons as unknown[]).map((r) => reasonText(t, String(r))).join(t("notices.reasonJoin")) : "";
      return t("notices.replaced", { reasons });
    }
    case "routine_note": {
      if (d.original != null) {
        const reasons = Array.isArray(d.reasons) ? (d.reasons as unknown[]).map((r) => reasonText(t, String(r))).join(t("notices.reasonJoin")) : "";
        return t("notices.routineReplaced", { routine: s("routine"), reasons });
      }
      return t("notices.routineNote", { routine: s("routine"), note: s("note") });
    }
  }
}

/**
 * What the parent was told about a child (`deskmate notices`): a daily limit
 * reached, a request in quiet hours, a companion's reply replaced by a safe
 * one — newest first, unread ones marked; each can be marked read, and a
 * replaced reply opens with what the model wrote and the conversation.
 */
export function NoticesList({ childId, name }: { childId: string; name: string }) {
  const t = useT();
  const [error, setError] = useState<string | null>(null);
  const load = (id: string) => family.noticesList(id, false);
  const { records: notices, change } = useRecords<Notice>(childId, load, (e) => setError(t("notices.error", { error: e })), setError);
  const [open, setOpen] = useState<ReplacedReply | null>(null);

  async function read(n: Notice) {
    setError(null);
    try {
      setOpen(await family.noticeReplacedReply(n.id));
    } catch (e) {
      setError(errorText(e));
    }
  }

  return (
    <section className="card" data-testid="notices" aria-labelledby="notices-title">
      <h2 id="notices-title" className="section-title">
        {t("notices.title", { name })}
      </h2>
      {error && (
        <p className="banner banner-error" role="alert" data-testid="notices-error">
          {error}
        </p>
      )}
      {notices && notices.length === 0 && (
        <p className="empty" data-testid="notices-empty">
          {t("notices.empty")}
        </p>
      )}
      {notices && notices.length > 0 && (
        <ul className="stack" data-testid="notices-list">
          {notices.map((n) => (
            <li key={n.id} className="notice-row" data-testid="notice" data-kind={n.kind} data-unread={n.read_at ? undefined : "true"}>
              <span className="small muted">{n.day}</span>{" "}
              {!n.read_at && <span className="tag tag-warn">{t("notices.unread")}</span>} <span data-testid="notice-text">{noticeText(t, n)}</span>{" "}
              {n.kind === "routine_note" && (n.detail as { original?: unknown } | null)?.original != null && (
                <details data-testid="notice-original">
                  <summary>{t("notices.original")}</summary>
                  <p>{String((n.detail as { original: unknown }).original)}</p>
                </details>
              )}{" "}
              {n.kind === "reply_replaced" && (
                <button type="button" className="btn btn-secondary" data-testid="notice-open" onClick={() => void read(n)}>
                  {t("notices.open")}
                </button>
              )}{" "}
              {!n.read_at && (
                <button
                  type="button"
                  className="btn btn-secondary"
                  data-testid="notice-read"
                  onClick={() => void change(() => family.noticeRead(n.id))}
                >
                  {t("notices.markRead")}
                </button>
              )}
            </li>
          ))}
        </ul>
      )}
      {open && <ReplacedReplyView reply={open} onClose={() => setOpen(null)} />}
    </section>
  );
}

/** A replaced reply: the model's own words (never shown to the child), why, and the conversation as the child saw it. */
function ReplacedReplyView({ reply, onClose }: { reply: ReplacedReply; onClose: () => void }) {
  const t = useT();
  const said = reply.thread.messages.filter((m) => (m.role === "user" || m.role === "assistant") && m.content.trim());
  return (
    <div className="card stack" data-testid="replaced-reply" role="region" aria-label={t("notices.replacedTitle")}>
      <h3 className="section-title">{t("notices.replacedTitle")}</h3>
      <p className="field-label">{t("notices.original")}</p>
      <blockquote data-testid="replaced-original">{reply.original}</blockquote>
      <p className="small muted">{t("notices.reasons", { reasons: reply.reasons.map((r) => reasonText(t, r)).join(t("notices.reasonJoin")) })}</p>
      <p className="field-label">{t("notices.conversation")}</p>
      <ol className="stack" data-testid="replaced-conversation">
        {said.map((m) => (
          <li key={m.id} data-role={m.role} data-replaced={m.id === reply.message_id ? "true" : undefined}>
            <strong>{m.role === "user" ? t("notices.child") : t("notices.companion")}</strong>: {m.content}
            {m.id === reply.message_id && <span className="tag tag-fail"> {t("notices.replacedHere")}</span>}
          </li>
        ))}
      </ol>
      <div>
        <button type="button" className="btn btn-secondary" data-testid="replaced-close" onClick={onClose}>
          {t("notices.close")}
        </button>
      </div>
    </div>
  );
}
