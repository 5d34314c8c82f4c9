import { useState } from "react";
import { useT, type MessageKey } from "../../i18n";
import type { ChatItem } from "../../chat/reducer";

const STATUS_KEYS: Record<string, MessageKey> = {
  pending: "chat.tool.pending",
  completed: "chat.tool.completed",
  error: "chat.tool.error",
  waiting: "chat.tool.held",
};

const PREVIEW_CHARS = 140;

/** Arguments as indented JSON when they parse, else as sent. */
export function prettyArgs(args: string): string {
  if (!args.trim()) return "";
  try {
    return JSON.stringify(JSON.parse(args), null, 2);
  } catch {
    return args;
  }
}

export function preview(text: string, max = PREVIEW_CHARS): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

/** A subagent at work: its name, the text it is writing, its tool calls. */
function LaneView({ lane }: { lane: NonNullable<Extract<ChatItem, { kind: "tool" }>["lane"]> }) {
  const t = useT();
  return (
    <div className="subagent-lane" data-testid="subagent-lane" data-agent={lane.agent} data-done={lane.done}>
      <p className="subagent-name">
        {!lane.done && <span className="spinner" aria-hidden="true" />} {t(lane.done ? "chat.subagent_done" : "chat.subagent", { agent: lane.agent })}
      </p>
      {lane.tools.length > 0 && (
        <ul className="subagent-tools">
          {lane.tools.map((c) => (
            <li key={c.id} className={`tag tool-tag-${c.status}`} data-testid="subagent-tool">
              {c.name}
            </li>
          ))}
        </ul>
      )}
      {lane.text && <p className="subagent-text">{lane.text}</p>}
    </div>
  );
}

/**
 * One tool call: name, status, a preview of the result; expands to the
 * arguments and the whole result. A `task` call shows its subagent's lane
 * live while it works; when done the lane folds into the card (open it to
 * see what the subagent wrote).
 */
export function ToolCard({ item }: { item: Extract<ChatItem, { kind: "tool" }> }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const bodyId = `tool-${item.id}`;
  const live = !!item.lane && item.status === "pending";
  return (
    <li
      className={`tool-card tool-${item.status}${live ? " has-live-lane" : ""}`}
      data-testid="tool-card"
      data-status={item.status}
      data-name={item.name}
    >
      <button
        type="button"
        className="tool-card-head"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="tool-icon" aria-hidden="true">
          {item.status === "pending" ? <span className="spinner" /> : item.status === "error" ? "!" : item.status === "waiting" ? "?" : "✓"}
        </span>
        <span className="tool-name">{item.name}</span>
        <span className={`tag tool-tag-${item.status}`}>{t(STATUS_KEYS[item.status] ?? "chat.tool.pending")}</span>
        <span className="tool-chevron" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
      </button>
      {live && item.lane && <LaneView lane={item.lane} />}
      {!open && item.result && <p className="tool-preview">{preview(item.result)}</p>}
      {open && (
        <div className="tool-body" id={bodyId}>
          {item.lane && <LaneView lane={item.lane} />}
          <p className="field-label">{t("chat.tool.args")}</p>
          <pre className="tool-pre">{prettyArgs(item.args) || "—"}</pre>
          <p className="field-label">{t("chat.tool.result")}</p>
          <pre className="tool-pre">{item.result ?? t("chat.tool.waiting")}</pre>
        </div>
      )}
    </li>
  );
}
