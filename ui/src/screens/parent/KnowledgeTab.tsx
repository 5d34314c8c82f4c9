import { useCallback, useEffect, useState, type DragEvent, type FormEvent } from "react";
import * as kb from "../../companionApi";
import type { KnowledgeBaseView, KnowledgeDocumentView, KnowledgeProgress } from "../../api";
import { errorText } from "../../errors";
import { useT } from "../../i18n";

/** The documents a knowledge base takes (what `deskmate kb add` reads). */
const ACCEPT = ".txt,.md,.markdown,.pdf,.docx";
/** The base a document goes to when the parent names none (the core's `DEFAULT_BASE`). */
const DEFAULT_BASE = "default";

/**
 * "知识库 / Knowledge": the family's knowledge bases (the built-in poem
 * library first), a base's documents, each removable; adding documents
 * picked or dropped onto the page to a named base, with each document's
 * embedding progress while it is added (a long PDF takes a while); removing
 * a whole base. The same calls as `deskmate kb`.
 */
export function KnowledgeTab() {
  const t = useT();
  const [bases, setBases] = useState<KnowledgeBaseView[] | null>(null);
  const [open, setOpen] = useState<string | null>(null);
  const [docs, setDocs] = useState<KnowledgeDocumentView[] | null>(null);
  const [base, setBase] = useState(DEFAULT_BASE);
  const [files, setFiles] = useState<File[]>([]);
  const [progress, setProgress] = useState<Record<string, KnowledgeProgress>>({});
  const [adding, setAdding] = useState(false);
  const [added, setAdded] = useState<KnowledgeDocumentView[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [dragging, setDragging] = useState(false);

  const load = useCallback(async () => {
    try {
      setBases((await kb.kbList()) ?? []);
    } catch (e) {
      setError(t("knowledge.error", { error: errorText(e) }));
    }
  }, [t]);

  useEffect(() => {
    void load();
  }, [load]);

  useEffect(() => {
    if (!open) return;
    let stale = false;
    setDocs(null);
    (async () => {
      try {
        const list = await kb.kbDocuments(open);
        if (!stale) setDocs(list ?? []);
      } catch (e) {
        if (!stale) setError(errorText(e));
      }
    })();
    return () => {
      stale = true;
    };
  }, [open, bases]);

  async function add(e: FormEvent) {
    e.preventDefault();
    if (files.length === 0 || adding) return;
    setAdding(true);
    setError(null);
    setAdded(null);
    setProgress({});
    try {
      const uploads = await kb.readUploads(files);
      const target = base.trim() || DEFAULT_BASE;
      const done = await kb.kbAdd(target, uploads, (p) => setProgress((all) => ({ ...all, [p.source]: p })));
      setAdded(done ?? []);
      setFiles([]);
      setOpen(target);
    } catch (err) {
      setError(errorText(err));
    } finally {
      setAdding(false);
      void load();
    }
  }

  async function remove(name: string, source: string | null) {
    setError(null);
    try {
      await kb.kbRemove(name, source);
      if (source === null && open === name) setOpen(null);
      await load();
    } catch (e) {
      setError(errorText(e));
    }
  }

  function onDrop(e: DragEvent<HTMLElement>) {
    e.preventDefault();
    setDragging(false);
    const dropped = Array.from(e.dataTransfer?.files ?? []);
    if (dropped.length > 0) setFiles(dropped);
  }

  return (
    <div className="stack" data-testid="knowledge-screen">
      <p className="muted">{t("knowledge.intro")}</p>
      {error && (
        <p className="banner banner-error" role="alert" data-testid="knowledge-error">
          {error}
        </p>
      )}
      {bases === null && !error && <p className="muted">{t("common.loading")}</p>}
      {bases && bases.length === 0 && (
        <p className="empty" data-testid="knowledge-empty">
          {t("knowledge.empty")}
        </p>
      )}
      {bases && bases.length > 0 && (
        <ul className="stack" data-testid="knowledge-bases">
          {bases.map((b) => (
            <li key={b.name} className="card" data-testid="knowledge-base" data-name={b.name}>
              <div className="section-head">
                <div>
                  <strong>{b.builtin ? t("knowledge.library") : b.name}</strong>{" "}
                  <span className="small muted">
                    {t("knowledge.counts", { documents: b.documents, chunks: b.chunks })}
                  </span>
                </div>
                <div>
                  <button
                    type="button"
                    className="btn btn-secondary"
                    data-testid="knowledge-open"
                    aria-expanded={open === b.name}
                    onClick={() => setOpen(open === b.name ? null : b.name)}
                  >
                    {open === b.name ? t("knowledge.hide") : t("knowledge.show")}
                  </button>{" "}
                  {!b.builtin && (
                    <button
                      type="button"
                      className="btn btn-secondary"
                      data-testid="knowledge-remove-base"
                      onClick={() => {
                        if (window.confirm(t("knowledge.removeBaseConfirm", { name: b.name }))) void remove(b.name, null);
                      }}
                    >
                      {t("knowledge.removeBase")}
                    </button>
                  )}
                </div>
              </div>
              {open === b.name && docs && (
                <ul className="stack" data-testid="knowledge-documents">
                  {docs.map((d) => (
                    <li key={d.source} data-testid="knowledge-document" data-source={d.source}>
                      <span>{d.title || d.source}</span>{" "}
                      <span className="small muted">
                        {t("knowledge.docCounts", { source: d.source, chunks: d.chunks, chars: d.chars })}
                      </span>{" "}
                      {!b.builtin && (
                        <button
                          type="button"
                          className="btn btn-secondary"
                          data-testid="knowledge-remove-document"
                          onClick={() => void remove(b.name, d.source)}
                        >
                          {t("knowledge.remove")}
                        </button>
                      )}
                    </li>
                  ))}
                </ul>
              )}
            </li>
          ))}
        </ul>
      )}
      <form
        className={`card${dragging ? " drop-target" : ""}`}
        data-testid="knowledge-add"
        onSubmit={add}
        onDragOver={(e) => {
          e.preventDefault();
          setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <h2 className="section-title">{t("knowledge.addTitle")}</h2>
        <label className="field-label" htmlFor="knowledge-base-name">
          {t("knowledge.base")}
        </label>
        <input
          id="knowledge-base-name"
          data-testid="knowledge-base-name"
          className="input"
          list="knowledge-base-names"
          value={base}
          onChange={(e) => setBase(e.target.value)}
        />
        <datalist id="knowledge-base-names">
          {(bases ?? [])
            .filter((b) => !b.builtin)
            .map((b) => (
              <option key={b.name} value={b.name} />
            ))}
        </datalist>
        <label className="field-label" htmlFor="knowledge-files">
          {t("knowledge.files")}
        </label>
        <input
          id="knowledge-files"
          data-testid="knowledge-files"
          type="file"
          multiple
          accept={ACCEPT}
          onChange={(e) => setFiles(Array.from(e.target.files ?? []))}
        />
        <p className="small muted">{t("knowledge.filesHint")}</p>
        {files.length > 0 && (
          <p className="small" data-testid="knowledge-chosen">
            {files.map((f) => f.name).join(", ")}
          </p>
        )}
        <button type="submit" className="btn btn-primary" data-testid="knowledge-add-button" disabled={files.length === 0 || adding}>
          {adding ? t("knowledge.adding") : t("knowledge.add")}
        </button>
        {Object.values(progress).map((p) => {
          const pct = p.total_chunks > 0 ? Math.round((p.done_chunks / p.total_chunks) * 100) : 0;
          return (
            <div key={p.source} className="model-progress" data-testid="knowledge-progress" data-source={p.source}>
              <div
                className="progress"
                role="progressbar"
                aria-label={t("knowledge.progressLabel", { source: p.source })}
                aria-valuemin={0}
                aria-valuemax={100}
                aria-valuenow={pct}
              >
                <span className="progress-fill" style={{ width: `${pct}%` }} />
              </div>
              <span className="small muted">
                {t("knowledge.progress", { source: p.source, done: p.done_chunks, total: p.total_chunks })}
              </span>
            </div>
          );
        })}
        {added && added.length > 0 && (
          <p className="banner" role="status" data-testid="knowledge-added">
            {added.map((d) => t("knowledge.added", { source: d.source, base: d.knowledge_base, chunks: d.chunks })).join(" ")}
          </p>
        )}
      </form>
    </div>
  );
}
