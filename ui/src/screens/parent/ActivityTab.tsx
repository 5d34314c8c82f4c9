import { useEffect, useState } from "react";
import * as api from "../../api";
import type { Trace, TraceSpan } from "../../api";
import { errorText } from "../../errors";
import { ChildPicker, useChildren } from "../../components/ChildPicker";
import { useT } from "../../i18n";

/** A logged decision in a word: `continue`, `switch → recite`, `reject: …`. */
export function decisionText(decision: unknown): string {
  if (typeof decision === "string") return decision;
  if (decision && typeof decision === "object" && "decision" in decision) {
    const d = decision as { decision: string; to?: string; reason?: string };
    if (d.to) return `${d.decision} → ${d.to}`;
    if (d.reason) return `${d.decision}: ${d.reason}`;
    return d.decision;
  }
  return JSON.stringify(decision);
}

/** One row of the timeline: a span, how deep it sits in the tree. */
export interface TimelineRow {
  span: TraceSpan;
  depth: number;
}

/**
 * The span tree in the order `deskmate trace show` draws it: each span under
 * its parent (by `parent_span_id`), siblings in their stored order (root
 * first, then by start). A span whose parent is missing is drawn at the top.
 */
export function timelineRows(spans: TraceSpan[]): TimelineRow[] {
  const ids = new Set(spans.map((s) => s.span_id));
  const rows: TimelineRow[] = [];
  const draw = (parent: string | null, depth: number) => {
    for (const s of spans) {
      const p = s.parent_span_id && ids.has(s.parent_span_id) ? s.parent_span_id : null;
      if (p !== parent) continue;
      rows.push({ span: s, depth });
      draw(s.span_id, depth + 1);
    }
  };
  draw(null, 0);
  return rows;
}

/** Microseconds as milliseconds with one decimal, as the CLI prints them. */
export const ms = (us: number) => `${(us / 1000).toFixed(1)} ms`;

function Timeline({ spans }: { spans: TraceSpan[] }) {
  const t = useT();
  if (spans.length === 0) return <p className="muted">{t("activity.noSpans")}</p>;
  return (
    <ol className="timeline" data-testid="trace-timeline" aria-label={t("activity.timeline")} style={{ listStyle: "none", paddingInlineStart: 0 }}>
      {timelineRows(spans).map(({ span, depth }) => {
        const failed = span.outcome === "error";
        const attrs = Object.entries(span.attributes ?? {})
          .map(([k, v]) => `${k}=${v}`)
          .join(" ");
        return (
          <li
            key={span.span_id}
            data-testid="trace-span"
            data-outcome={span.outcome}
            className={failed ? "timeline-span timeline-error" : "timeline-span"}
            style={{ paddingInlineStart: `${depth * 1.5}em` }}
          >
            <strong>{span.name}</strong> <span data-testid="span-ms">{ms(span.duration_us)}</span>{" "}
            {failed ? (
              <span className="badge badge-error" data-testid="span-error">
                {t("activity.failed")}
                {span.error_code ? ` ${span.error_code}` : ""}
              </span>
            ) : (
              <span className="muted">{span.outcome}</span>
            )}
            {attrs && <span className="muted"> · {attrs}</span>}
          </li>
        );
      })}
    </ol>
  );
}

/** One request in the list; opened, its timeline (read again from the core). */
function Request({ trace }: { trace: Trace }) {
  const t = useT();
  const [open, setOpen] = useState<Trace | null>(null);
  const [error, setError] = useState<string | null>(null);
  // A request refused before a decision has no intent; its root span holds why.
  const refusedCode = trace.intent === "" ? (trace.spans[0]?.error_code ?? null) : null;

  async function toggle() {
    if (open) {
      setOpen(null);
      return;
    }
    try {
      setError(null);
      setOpen(await api.traceShow(trace.trace_id));
    } catch (e) {
      setError(errorText(e));
    }
  }

  return (
    <li className="card" data-testid="trace-item" data-trace-id={trace.trace_id}>
      <div className="muted">{new Date(trace.at).toLocaleString()}</div>
      {refusedCode ? (
        // Refused before a decision (nothing heard, a photo that could not be used): why, by its code.
        <div className="muted" data-testid="trace-summary" data-refused={refusedCode}>
          {t("activity.scene")}: {trace.scene_before} · {t("activity.refused")}: {errorText({ code: refusedCode, message: trace.reason })}
        </div>
      ) : (
        <>
          <div>
            {t("activity.said")}: <strong data-testid="trace-input">{trace.input}</strong>
          </div>
          <div className="muted" data-testid="trace-summary">
            {t("activity.scene")}: {trace.scene_before} → {trace.scene_after} · {t("activity.intent")}: {trace.intent} (
            {trace.confidence}) · {t("activity.decision")}: {decisionText(trace.decision)}
          </div>
        </>
      )}
      {trace.said && (
        <div>
          {t("activity.told")}: {trace.said}
        </div>
      )}
      <button type="button" className="btn btn-secondary" data-testid="trace-open" aria-expanded={!!open} onClick={toggle}>
        {open ? t("activity.close") : t("activity.open")}
      </button>
      {error && (
        <p className="banner banner-error" role="alert">
          {error}
        </p>
      )}
      {open && <Timeline spans={open.spans} />}
    </li>
  );
}

/** "What happened": pick a child; their recent requests, newest first, each opening its timeline. */
export function ActivityTab() {
  const t = useT();
  const [traces, setTraces] = useState<Trace[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const { children, childId, setChildId, name } = useChildren(setError);

  useEffect(() => {
    if (!childId) return;
    let stale = false;
    setTraces(null);
    setError(null);
    (async () => {
      try {
        const list = await api.tracesRecent(childId);
        if (!stale) setTraces(list ?? []);
      } catch (e) {
        if (!stale) setError(errorText(e));
      }
    })();
    return () => {
      stale = true;
    };
  }, [childId]);

  return (
    <div className="stack" data-testid="activity-screen">
      <ChildPicker id="activity-child" label={t("activity.child")} children={children} childId={childId} onChange={setChildId} />
      {children && children.length === 0 && <p className="empty">{t("activity.noChildren")}</p>}
      {error && (
        <p className="banner banner-error" role="alert" data-testid="activity-error">
          {t("activity.error", { error })}
        </p>
      )}
      {traces && traces.length === 0 && (
        <p className="empty" data-testid="activity-empty">
          {t("activity.empty", { name })}
        </p>
      )}
      {traces && traces.length > 0 && (
        <ul className="stack" data-testid="activity-list">
          {traces.map((tr) => (
            <Request key={tr.trace_id} trace={tr} />
          ))}
        </ul>
      )}
    </div>
  );
}
