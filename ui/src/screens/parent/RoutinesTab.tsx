/**
 * "日常安排 / Routines" (issue 21): the routines a parent designs for their
 * child — the saved ones, a new one, or one started from a built-in example
 * (not saved until the parent saves it) — edited in ./routines/RoutineEditor.
 * The same calls as `deskmate workflows`.
 */
import { useEffect, useState } from "react";
import * as api from "../../api";
import type { Material, Routine, RoutineParts } from "../../api";
import { useChildren } from "../../components/ChildPicker";
import { errorText } from "../../errors";
import { useT } from "../../i18n";
import * as routinesApi from "../../routinesApi";
import { emptyRoutine } from "./routines/graph";
import { RoutineEditor } from "./routines/RoutineEditor";

interface Editing {
  routine: Routine;
  savedName: string | null;
  /** Remounts the editor for each routine opened. */
  key: number;
}

export function RoutinesTab() {
  const t = useT();
  const [error, setError] = useState<string | null>(null);
  const { children } = useChildren(setError);
  const [routines, setRoutines] = useState<Routine[] | null>(null);
  const [examples, setExamples] = useState<Routine[]>([]);
  const [example, setExample] = useState("");
  const [parts, setParts] = useState<RoutineParts | null>(null);
  const [materials, setMaterials] = useState<Material[]>([]);
  const [editing, setEditing] = useState<Editing | null>(null);
  // The editor's unsaved changes are not dropped by opening another routine without asking.
  const [dirty, setDirty] = useState(false);
  const [pending, setPending] = useState<{ routine: Routine; savedName: string | null } | null>(null);

  useEffect(() => {
    let stale = false;
    const fail = (e: unknown) => {
      if (!stale) setError(t("routines.error", { error: errorText(e) }));
    };
    routinesApi.routinesList().then((r) => !stale && setRoutines(r), fail);
    routinesApi.routineExamples().then((r) => {
      if (stale) return;
      setExamples(r);
      setExample(r[0]?.name ?? "");
    }, fail);
    routinesApi.routineParts().then((p) => !stale && setParts(p), fail);
    api.materialsList({ lang: null, grade: null, search: null }).then((m) => !stale && setMaterials(m), fail);
    return () => {
      stale = true;
    };
  }, [t]);

  function open(routine: Routine, savedName: string | null, discard = false) {
    if (dirty && editing && !discard) {
      setPending({ routine, savedName });
      return;
    }
    setPending(null);
    setDirty(false);
    setEditing((e) => ({ routine, savedName, key: (e?.key ?? 0) + 1 }));
  }

  function onSaved(saved: Routine) {
    setEditing((e) => e && { ...e, savedName: saved.name });
    setRoutines((all) => [...(all ?? []).filter((r) => r.name !== saved.name), saved].sort((a, b) => a.name.localeCompare(b.name)));
  }

  function onDeleted(name: string) {
    setRoutines((all) => (all ?? []).filter((r) => r.name !== name));
    setDirty(false);
    setEditing(null);
  }

  const fromExample = examples.find((r) => r.name === example);

  return (
    <div className="stack" data-testid="routines-screen">
      <p className="muted">{t("routines.intro")}</p>
      {error && (
        <p className="banner banner-error" role="alert" data-testid="routines-error">
          {error}
        </p>
      )}
      <div className="routine-list-row">
        {routines && routines.length === 0 && (
          <p className="empty" data-testid="routines-empty">
            {t("routines.empty")}
          </p>
        )}
        {routines && routines.length > 0 && (
          <ul className="routine-list" data-testid="routine-list">
            {routines.map((r) => (
              <li key={r.name}>
                <button
                  type="button"
                  className="btn btn-secondary"
                  data-testid="routine-item"
                  data-name={r.name}
                  aria-pressed={editing?.savedName === r.name}
                  title={r.description}
                  onClick={() => open(r, r.name)}
                >
                  {r.name}
                </button>
              </li>
            ))}
          </ul>
        )}
        <div className="routine-new">
          <button type="button" className="btn btn-primary" data-testid="routine-new" onClick={() => open(emptyRoutine(""), null)}>
            {t("routines.new")}
          </button>
          {examples.length > 0 && (
            <>
              <select aria-label={t("routines.example")} id="routine-example" data-testid="routine-example" className="input" value={example} onChange={(e) => setExample(e.target.value)}>
                {examples.map((r) => (
                  <option key={r.name} value={r.name} title={r.description}>
                    {r.name}
                  </option>
                ))}
              </select>
              <button
                type="button"
                className="btn btn-secondary"
                data-testid="routine-from-example"
                disabled={!fromExample}
                onClick={() => fromExample && open(fromExample, null)}
              >
                {t("routines.fromExample")}
              </button>
            </>
          )}
        </div>
      </div>
      {pending && (
        <p className="banner banner-error" role="alert" data-testid="routine-unsaved">
          {t("routines.unsaved")}{" "}
          <button type="button" className="btn btn-primary" data-testid="routine-discard" onClick={() => open(pending.routine, pending.savedName, true)}>
            {t("routines.discard")}
          </button>{" "}
          <button type="button" className="btn btn-ghost" data-testid="routine-keep" onClick={() => setPending(null)}>
            {t("routines.keep")}
          </button>
        </p>
      )}
      {editing && (
        <RoutineEditor
          key={editing.key}
          initial={editing.routine}
          savedName={editing.savedName}
          parts={parts}
          materials={materials}
          children={children}
          onSaved={onSaved}
          onDeleted={onDeleted}
          onDirty={setDirty}
        />
      )}
    </div>
  );
}
