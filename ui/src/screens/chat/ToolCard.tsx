import { useState } from "react";
import { useT, type MessageKey } from "../../i18n";
import type { ChatItem } from "../../chat/reducer";

const STATUS_KEYS: Record<string, MessageKey> = {
  pending: "chat.tool.pending",
  completed: "chat.tool.completed",
  error: "chat.tool.error",
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

/** One tool call: name, status, a preview of the result; expands to the arguments and the whole result. */
export function ToolCard({ item }: { item: Extract<ChatItem, { kind: "tool" }> }) {
  const t = useT();
  const [open, setOpen] = useState(false);
  const bodyId = `tool-${item.id}`;
  return (
    <li className={`tool-card tool-${item.status}`} data-testid="tool-card" data-status={item.status} data-name={item.name}>
      <button
        type="button"
        className="tool-card-head"
        aria-expanded={open}
        aria-controls={bodyId}
        onClick={() => setOpen((o) => !o)}
      >
        <span className="tool-icon" aria-hidden="true">
          {item.status === "pending" ? <span className="spinner" /> : item.status === "error" ? "!" : "✓"}
        </span>
        <span className="tool-name">{item.name}</span>
        <span className={`tag tool-tag-${item.status}`}>{t(STATUS_KEYS[item.status] ?? "chat.tool.pending")}</span>
        <span className="tool-chevron" aria-hidden="true">
          {open ? "▾" : "▸"}
        </span>
      </button>
      {!open && item.result && <p className="tool-preview">{preview(item.result)}</p>}
      {open && (
        <div className="tool-body" id={bodyId}>
          <p className="field-label">{t("chat.tool.args")}</p>
          <pre className="tool-pre">{prettyArgs(item.args) || "—"}</pre>
          <p className="field-label">{t("chat.tool.result")}</p>
          <pre className="tool-pre">{item.result ?? t("chat.tool.waiting")}</pre>
        </div>
      )}
    </li>
  );
}
