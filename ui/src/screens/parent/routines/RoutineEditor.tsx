/**
 * The routine editor: a React Flow canvas of the routine's nodes (dragged,
 * connected handle to handle, deleted with the Delete key), buttons that
 * add a node of each kind, and a side panel that edits the selected node —
 * its next node, agent, tool, material, prompt, keywords, note — so every
 * edit can also be made from the keyboard. On every change (debounced) the
 * core's validator checks the graph and its problems are shown on the nodes
 * at fault; Save is refused while there are any. A saved routine runs for a
 * child on a test input and its nodes light up from the run's events. The
 * children ticked get the routine on their plan each day.
 */
import {
  Background,
  Controls,
  ReactFlow,
  useUpdateNodeInternals,
  type Connection,
  type EdgeChange,
  type NodeChange,
  type NodeTypes,
} from "@xyflow/react";
import "@xyflow/react/dist/style.css";
import { useEffect, useMemo, useState } from "react";
import type { Material, Profile, Routine, RoutineParts, RoutineProblem, RoutineRunView } from "../../../api";
import { ChildPicker } from "../../../components/ChildPicker";
import { errorText } from "../../../errors";
import { useT } from "../../../i18n";
import * as routinesApi from "../../../routinesApi";
import { useDebounced } from "../../../useDebounced";
import {
  NODE_TYPES,
  NO_RUN,
  addNode,
  applyEvent,
  assign,
  autoLayout,
  connect,
  edgeEnds,
  problemsByNode,
  progressOfRun,
  relayout,
  removeNode,
  toFlow,
  updateNode,
  type FlowNode,
  type HandleId,
  type RunProgress,
} from "./graph";
import { NodePanel } from "./NodePanel";
import { RoutineNodeView } from "./RoutineNodeView";
import { problemWords, typeKey } from "./words";

const NODE_VIEWS: NodeTypes = { routine: RoutineNodeView };
const NO_PROBLEMS: RoutineProblem[] = [];

/** How long the editor waits after a change before asking the validator. */
export const CHECK_DELAY_MS = 250;

export interface RoutineEditorProps {
  initial: Routine;
  /** The name it is saved under; null for a new routine (or an example not yet saved). */
  savedName: string | null;
  parts: RoutineParts | null;
  materials: Material[];
  children: Profile[] | null;
  onSaved: (routine: Routine) => void;
  onDeleted: (name: string) => void;
  /** Hears whether there are changes not saved yet. */
  onDirty?: (dirty: boolean) => void;
}

export function RoutineEditor({ initial, savedName, parts, materials, children, onSaved, onDeleted, onDirty }: RoutineEditorProps) {
  const t = useT();
  const [routine, setRoutine] = useState<Routine>(() => autoLayout(initial));
  const [initialJson] = useState(() => JSON.stringify(autoLayout(initial)));
  const [savedAs, setSavedAs] = useState<{ name: string; json: string } | null>(() =>
    savedName ? { name: savedName, json: initialJson } : null,
  );
  const [problems, setProblems] = useState<RoutineProblem[] | null>(null);
  const [selected, setSelected] = useState<string | null>(null);
  const [measured, setMeasured] = useState<Record<string, { width: number; height: number }>>({});
  const [error, setError] = useState<string | null>(null);
  const [refused, setRefused] = useState(false);
  const [justSaved, setJustSaved] = useState(false);
  const [saving, setSaving] = useState(false);
  const [confirmDelete, setConfirmDelete] = useState(false);
  const [childId, setChildId] = useState("");
  const [input, setInput] = useState("");
  const [running, setRunning] = useState(false);
  const [progress, setProgress] = useState<RunProgress>(NO_RUN);
  const [runs, setRuns] = useState<RoutineRunView[]>([]);

  // Changed since it was opened or saved (a new routine not yet touched has nothing to lose).
  const changed = JSON.stringify(routine) !== (savedAs?.json ?? initialJson);
  const dirty = !savedAs || changed;
  const child = childId || children?.[0]?.id || "";
  useEffect(() => onDirty?.(changed), [changed, onDirty]);

  // Every change is checked by the core's validator, once typing pauses.
  const toCheck = useDebounced(routine, CHECK_DELAY_MS);
  useEffect(() => {
    let stale = false;
    routinesApi
      .routineCheck(toCheck)
      .then((found) => {
        if (!stale) setProblems(found);
      })
      .catch((e) => {
        if (!stale) setError(errorText(e));
      });
    return () => {
      stale = true;
    };
  }, [toCheck]);

  const savedAsName = savedAs?.name ?? null;
  useEffect(() => {
    if (!savedAsName) return;
    let stale = false;
    routinesApi
      .routineRuns(savedAsName)
      .then((r) => {
        if (!stale) setRuns(r);
      })
      .catch((e) => {
        if (!stale) setError(errorText(e));
      });
    return () => {
      stale = true;
    };
  }, [savedAsName]);

  function edit(next: Routine) {
    setRoutine(next);
    setRefused(false);
    setJustSaved(false);
  }

  const current = problems ?? NO_PROBLEMS;
  const { general } = problemsByNode(routine, current);
  const flow = useMemo(() => toFlow(routine, current, progress, selected, t("routines.default")), [routine, current, progress, selected, t]);
  const nodes = flow.nodes.map((n) => (measured[n.id] ? { ...n, measured: measured[n.id] } : n));

  function onNodesChange(changes: NodeChange<FlowNode>[]) {
    let next = routine;
    let sel = selected;
    const sizes: Record<string, { width: number; height: number }> = {};
    for (const c of changes) {
      if (c.type === "position" && c.position) {
        const { x, y } = c.position;
        next = updateNode(next, c.id, (n) => ({ ...n, position: { x: Math.round(x), y: Math.round(y) } }));
      } else if (c.type === "dimensions" && c.dimensions) {
        sizes[c.id] = c.dimensions;
      } else if (c.type === "select") {
        if (c.selected) sel = c.id;
        else if (sel === c.id) sel = null;
      } else if (c.type === "remove") {
        next = removeNode(next, c.id);
        if (sel === c.id) sel = null;
      }
    }
    if (Object.keys(sizes).length > 0) setMeasured((m) => ({ ...m, ...sizes }));
    if (sel !== selected) setSelected(sel);
    if (next !== routine) edit(next);
  }

  function onEdgesChange(changes: EdgeChange[]) {
    let next = routine;
    for (const c of changes) {
      if (c.type === "remove") {
        const { source, handle } = edgeEnds(c.id);
        next = connect(next, source, handle, null);
      }
    }
    if (next !== routine) edit(next);
  }

  function onConnect(c: Connection) {
    edit(connect(routine, c.source, (c.sourceHandle ?? "next") as HandleId, c.target));
  }

  function add(type: (typeof NODE_TYPES)[number]) {
    const near = routine.nodes.find((n) => n.id === selected)?.position ?? undefined;
    const added = addNode(routine, type, near);
    edit(added.routine);
    setSelected(added.id);
  }

  async function save() {
    setError(null);
    setSaving(true);
    try {
      // Checked again now: the debounced check may be behind the last edit.
      const found = await routinesApi.routineCheck(routine);
      setProblems(found);
      if (found.length > 0) {
        setRefused(true);
        return;
      }
      const saved = await routinesApi.routineSave(routine, savedAs?.name === routine.name);
      const laid = autoLayout(saved);
      setRoutine(laid);
      setSavedAs({ name: laid.name, json: JSON.stringify(laid) });
      setJustSaved(true);
      onSaved(laid);
    } catch (e) {
      setError(errorText(e));
    } finally {
      setSaving(false);
    }
  }

  async function remove() {
    if (!savedAs) return;
    setError(null);
    try {
      await routinesApi.routineDelete(savedAs.name);
      onDeleted(savedAs.name);
    } catch (e) {
      setError(errorText(e));
    }
  }

  async function go(start: (onEvent: Parameters<typeof routinesApi.routineResume>[1]) => Promise<RoutineRunView>, fresh: boolean) {
    setError(null);
    setRunning(true);
    if (fresh) setProgress({ ...NO_RUN });
    else setProgress((p) => ({ ...p, status: "running", note: null }));
    try {
      const view = await start((event) => setProgress((p) => applyEvent(p, event)));
      setProgress((p) => ({ ...p, runId: view.id, status: view.status as RunProgress["status"] }));
      if (savedAs) setRuns(await routinesApi.routineRuns(savedAs.name));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setRunning(false);
    }
  }

  const runNow = () => savedAs && go((onEvent) => routinesApi.routineRun(savedAs.name, child, input, onEvent), true);
  const resume = () => progress.runId && go((onEvent) => routinesApi.routineResume(progress.runId!, onEvent), false);
  const selectedNode = routine.nodes.find((n) => n.id === selected) ?? null;
  const showRun = running || progress.runId !== null;

  return (
    <div className="stack routine-editor" data-testid="routine-editor">
      <div className="routine-editor-head">
        <div className="field">
          <label className="field-label" htmlFor="routine-name">
            {t("routines.name")}
          </label>
          <input id="routine-name" data-testid="routine-name" className="input" value={routine.name} onChange={(e) => edit({ ...routine, name: e.target.value })} />
        </div>
        <div className="field routine-editor-description">
          <label className="field-label" htmlFor="routine-description">
            {t("routines.description")}
          </label>
          <input
            id="routine-description"
            data-testid="routine-description"
            className="input"
            value={routine.description}
            onChange={(e) => edit({ ...routine, description: e.target.value })}
          />
        </div>
        <div className="routine-editor-actions">
          <button type="button" className="btn btn-primary" data-testid="routine-save" onClick={save} disabled={saving}>
            {saving ? t("common.saving") : t("routines.save")}
          </button>
          {savedAs && !confirmDelete && (
            <button type="button" className="btn btn-ghost" data-testid="routine-delete" onClick={() => setConfirmDelete(true)}>
              {t("routines.delete")}
            </button>
          )}
          {savedAs && confirmDelete && (
            <span className="routine-confirm" role="group" aria-label={t("routines.deleteConfirm", { name: savedAs.name })}>
              {t("routines.deleteConfirm", { name: savedAs.name })}{" "}
              <button type="button" className="btn btn-primary" data-testid="routine-delete-yes" onClick={remove}>
                {t("routines.delete")}
              </button>{" "}
              <button type="button" className="btn btn-ghost" data-testid="routine-delete-no" onClick={() => setConfirmDelete(false)}>
                {t("common.cancel")}
              </button>
            </span>
          )}
        </div>
      </div>

      {children && children.length > 0 && (
        <fieldset className="routine-children">
          <legend className="field-label">{t("routines.children")}</legend>
          {children.map((c) => (
            <label key={c.id} className="check">
              <input
                type="checkbox"
                data-testid={`routine-child-${c.id}`}
                checked={(routine.children ?? []).includes(c.id)}
                onChange={(e) => edit(assign(routine, c.id, e.target.checked))}
              />{" "}
              {c.name}
            </label>
          ))}
        </fieldset>
      )}

      <div className="routine-add" role="group" aria-label={t("routines.add")}>
        <span className="field-label">{t("routines.add")}</span>
        {NODE_TYPES.map((type) => (
          <button key={type} type="button" className="btn btn-secondary" data-testid={`routine-add-${type}`} onClick={() => add(type)}>
            + {t(typeKey(type))}
          </button>
        ))}
        <button type="button" className="btn btn-ghost" data-testid="routine-tidy" onClick={() => edit(relayout(routine))}>
          {t("routines.tidy")}
        </button>
      </div>

      {error && (
        <p className="banner banner-error" role="alert" data-testid="routine-error">
          {error}
        </p>
      )}
      {justSaved && (
        <p className="banner banner-ok" role="status" data-testid="routine-saved">
          {t("routines.saved", { name: routine.name })}
        </p>
      )}
      <div
        className={`routine-check ${current.length > 0 ? "has-problem" : ""}`}
        data-testid="routine-check"
        data-state={problems === null ? "checking" : current.length > 0 ? "problems" : "valid"}
        role={refused ? "alert" : "status"}
      >
        {refused && <strong data-testid="routine-refused">{t("routines.refused", { n: current.length })} </strong>}
        {problems === null && t("routines.checking")}
        {problems !== null && current.length === 0 && t("routines.valid")}
        {current.length > 0 && (
          <ul data-testid="routine-problems">
            {current.map((p, i) => (
              <li key={i} data-code={p.code} data-node={p.node ?? ""} className={general.includes(p) ? "general" : ""}>
                {problemWords(t, p)}
              </li>
            ))}
          </ul>
        )}
      </div>

      <div className="routine-workspace">
        <div className="routine-canvas" data-testid="routine-canvas" aria-label={t("routines.canvas")}>
          <ReactFlow
            nodes={nodes}
            edges={flow.edges}
            nodeTypes={NODE_VIEWS}
            onNodesChange={onNodesChange}
            onEdgesChange={onEdgesChange}
            onConnect={onConnect}
            deleteKeyCode={["Delete", "Backspace"]}
            fitView
            fitViewOptions={{ maxZoom: 1 }}
            proOptions={{ hideAttribution: true }}
          >
            <Background />
            <Controls showInteractive={false} />
            <MeasureHandles nodes={flow.nodes} measured={Object.keys(measured).length} />
          </ReactFlow>
        </div>
        <NodePanel
          routine={routine}
          node={selectedNode}
          parts={parts}
          materials={materials}
          problems={selectedNode ? current.filter((p) => p.node === selectedNode.id) : []}
          output={selectedNode ? progress.outputs[selectedNode.id] ?? null : null}
          onSelect={setSelected}
          onChange={edit}
        />
      </div>

      <section className="card stack routine-run" aria-labelledby="routine-run-title">
        <h3 id="routine-run-title">{t("routines.run.title")}</h3>
        <div className="routine-run-form">
          <ChildPicker id="routine-run-child" label={t("routines.run.child")} children={children} childId={child} onChange={setChildId} />
          <div className="field routine-run-input">
            <label className="field-label" htmlFor="routine-run-input">
              {t("routines.run.input")}
            </label>
            <input id="routine-run-input" data-testid="routine-run-input" className="input" value={input} onChange={(e) => setInput(e.target.value)} />
          </div>
          <button type="button" className="btn btn-primary" data-testid="routine-run" onClick={runNow} disabled={!savedAs || dirty || running || !child}>
            {running ? t("routines.run.running") : t("routines.run.start")}
          </button>
        </div>
        {(!savedAs || dirty) && <p className="field-hint">{t("routines.run.saveFirst")}</p>}
        {showRun && (
          <p className={`routine-run-status status-${progress.status}`} data-testid="routine-run-status" data-status={running ? "running" : progress.status} role="status">
            {running
              ? t("routines.run.running")
              : progress.status === "failed"
                ? t("routines.run.failed", { message: progress.note ?? "" })
                : progress.status === "waiting"
                  ? t("routines.run.waiting", { reason: progress.note ?? "" })
                  : t("routines.run.finished")}
            {!running && progress.status === "waiting" && (
              <button type="button" className="btn btn-secondary" data-testid="routine-resume" onClick={resume}>
                {t("routines.run.resume")}
              </button>
            )}
          </p>
        )}
        {runs.length > 0 && (
          <div className="stack routine-runs">
            <h4>{t("routines.runs")}</h4>
            <ul data-testid="routine-runs">
              {runs.map((r) => (
                <li key={r.id}>
                  <button type="button" className="btn btn-ghost" data-testid="routine-run-item" onClick={() => setProgress(progressOfRun(r))}>
                    {t(`routines.runStatus.${r.status as RunProgress["status"]}`)} · {r.input || "—"}
                  </button>
                </li>
              ))}
            </ul>
          </div>
        )}
      </section>
    </div>
  );
}

/**
 * React Flow forgets a node's handle positions whenever it is given that
 * node without `measured` (as on the renders before this editor has kept
 * the node's size), and measures them again only when the node's size
 * changes. The edges, drawn from handle to handle, then stayed missing
 * (the window test found an example routine with no edges, about one time
 * in three). So after each change of the graph, and once more when the
 * sizes are known, every node's handles are measured again on the next
 * frame.
 */
function MeasureHandles({ nodes, measured }: { nodes: { id: string }[]; measured: number }) {
  const update = useUpdateNodeInternals();
  useEffect(() => {
    const ids = nodes.map((n) => n.id);
    const frame = requestAnimationFrame(() => update(ids));
    return () => cancelAnimationFrame(frame);
  }, [nodes, measured, update]);
  return null;
}
