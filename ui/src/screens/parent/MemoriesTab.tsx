import { useState, type FormEvent } from "react";
import * as companion from "../../companionApi";
import type { Memory, MemoryKind } from "../../api";
import { ChildPicker, useChildren } from "../../components/ChildPicker";
import { useT } from "../../i18n";
import { useRecords } from "./useRecords";

const KINDS: MemoryKind[] = ["likes", "finds_hard", "working_towards", "other"];

/**
 * "记忆 / Memories": what the companion remembers about a child (the parent
 * area is behind the PIN): each memory with its kind and where it came
 * from, edited in place or deleted; a parent adds one of their own. The
 * same calls as `deskmate memory`.
 */
export function MemoriesTab() {
  const t = useT();
  const [error, setError] = useState<string | null>(null);
  const { children, childId, setChildId, name } = useChildren(setError);
  const {
    records: memories,
    setRecords: setMemories,
    change,
  } = useRecords<Memory>(childId, companion.memoriesList, (e) => setError(t("memories.error", { error: e })), setError);
  const [kind, setKind] = useState<MemoryKind>("likes");
  const [text, setText] = useState("");
  const [editing, setEditing] = useState<{ id: string; text: string; kind: MemoryKind } | null>(null);

  async function add(e: FormEvent) {
    e.preventDefault();
    if (!text.trim()) return;
    if (await change(() => companion.memoryAdd(childId, kind, text.trim()))) setText("");
  }

  async function save(e: FormEvent) {
    e.preventDefault();
    if (!editing || !editing.text.trim()) return;
    const { id, text: words, kind: k } = editing;
    if (await change(() => companion.memoryEdit(childId, id, words.trim(), k))) setEditing(null);
  }

  function kindSelect(id: string, value: MemoryKind, onChange: (k: MemoryKind) => void) {
    return (
      <select id={id} data-testid={id} className="input" value={value} onChange={(e) => onChange(e.target.value as MemoryKind)}>
        {KINDS.map((k) => (
          <option key={k} value={k}>
            {t(`memories.kind.${k}`)}
          </option>
        ))}
      </select>
    );
  }

  return (
    <div className="stack" data-testid="memories-screen">
      <ChildPicker
        id="memories-child"
        label={t("memories.child")}
        children={children}
        childId={childId}
        onChange={(id) => {
          setMemories(null);
          setEditing(null);
          setChildId(id);
        }}
      />
      <p className="muted">{t("memories.intro")}</p>
      {children && children.length === 0 && <p className="empty">{t("goals.noChildren")}</p>}
      {error && (
        <p className="banner banner-error" role="alert" data-testid="memories-error">
          {error}
        </p>
      )}
      {memories && memories.length === 0 && (
        <p className="empty" data-testid="memories-empty">
          {t("memories.empty", { name })}
        </p>
      )}
      {memories && memories.length > 0 && (
        <ul className="stack" data-testid="memories-list">
          {memories.map((m) =>
            editing?.id === m.id ? (
              <li key={m.id} className="card">
                <form className="stack" onSubmit={save} data-testid="memory-edit-form">
                  {kindSelect("memory-edit-kind", editing.kind, (k) => setEditing({ ...editing, kind: k }))}
                  <input
                    data-testid="memory-edit-text"
                    className="input"
                    aria-label={t("memories.text")}
                    value={editing.text}
                    onChange={(e) => setEditing({ ...editing, text: e.target.value })}
                  />
                  <div>
                    <button type="submit" className="btn btn-primary" data-testid="memory-save" disabled={!editing.text.trim()}>
                      {t("memories.save")}
                    </button>{" "}
                    <button type="button" className="btn btn-secondary" onClick={() => setEditing(null)}>
                      {t("common.cancel")}
                    </button>
                  </div>
                </form>
              </li>
            ) : (
              <li key={m.id} className="card" data-testid="memory-item" data-kind={m.kind} data-source={m.source}>
                <span className="tag">{t(`memories.kind.${m.kind}`)}</span> <span data-testid="memory-text">{m.text}</span>{" "}
                <span className="small muted">{t(`memories.source.${m.source}`)}</span>{" "}
                <button
                  type="button"
                  className="btn btn-secondary"
                  data-testid="memory-edit"
                  onClick={() => setEditing({ id: m.id, text: m.text, kind: m.kind })}
                >
                  {t("memories.edit")}
                </button>{" "}
                <button
                  type="button"
                  className="btn btn-secondary"
                  data-testid="memory-delete"
                  onClick={() => void change(() => companion.memoryDelete(childId, m.id))}
                >
                  {t("memories.delete")}
                </button>
              </li>
            ),
          )}
        </ul>
      )}
      {childId && (
        <form className="card" onSubmit={add} data-testid="memory-add-form">
          <label className="field-label" htmlFor="memory-kind">
            {t("memories.kind")}
          </label>
          {kindSelect("memory-kind", kind, setKind)}
          <label className="field-label" htmlFor="memory-text">
            {t("memories.text")}
          </label>
          <input
            id="memory-text"
            data-testid="memory-new-text"
            className="input"
            value={text}
            placeholder={t("memories.placeholder")}
            onChange={(e) => setText(e.target.value)}
          />
          <button type="submit" className="btn" data-testid="memory-add" disabled={!text.trim()}>
            {t("memories.add")}
          </button>
        </form>
      )}
    </div>
  );
}
