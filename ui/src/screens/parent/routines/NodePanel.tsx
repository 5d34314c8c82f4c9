/**
 * The side panel of the routine editor: the selected node's settings — the
 * node it leads to (so nodes can be connected without dragging), the agent
 * from the team and its prompt, the study tool and its arguments, the
 * material to recite, the note to the parent, a condition's keywords each
 * with where it leads and its default — its problems, and its output in
 * the last run. With no node selected, a list of the nodes to pick one.
 */
import { useEffect, useState } from "react";
import type { Material, Routine, RoutineNode, RoutinePart, RoutineParts, RoutineProblem } from "../../../api";
import { useT } from "../../../i18n";
import { connect, removeNode, updateNode, type HandleId } from "./graph";
import { problemWords, typeKey } from "./words";

interface NodePanelProps {
  routine: Routine;
  node: RoutineNode | null;
  parts: RoutineParts | null;
  materials: Material[];
  problems: RoutineProblem[];
  output: string | null;
  onSelect: (id: string | null) => void;
  onChange: (routine: Routine) => void;
}

export function NodePanel({ routine, node, parts, materials, problems, output, onSelect, onChange }: NodePanelProps) {
  const t = useT();
  if (!node) {
    return (
      <aside className="routine-panel" data-testid="routine-panel">
        <p className="muted">{t("routines.panel.empty")}</p>
        <ul className="routine-panel-nodes">
          {routine.nodes.map((n) => (
            <li key={n.id}>
              <button type="button" className="btn btn-ghost" data-testid={`routine-select-${n.id}`} onClick={() => onSelect(n.id)}>
                {t(typeKey(n.type))} · {n.id}
              </button>
            </li>
          ))}
        </ul>
      </aside>
    );
  }
  const id = node.id;
  const set = (change: (n: RoutineNode) => RoutineNode) => onChange(updateNode(routine, id, change));
  const link = (handle: HandleId, to: string) => onChange(connect(routine, id, handle, to));
  // Where a way out can lead: any other node but the start.
  const targets = routine.nodes.filter((n) => n.id !== id && n.type !== "start").map((n) => n.id);

  function targetSelect(testId: string, label: string, value: string, handle: HandleId) {
    return (
      <div className="field">
        <label className="field-label" htmlFor={testId}>
          {label}
        </label>
        <select id={testId} data-testid={testId} className="input" value={value} onChange={(e) => link(handle, e.target.value)}>
          <option value="">{t("routines.none")}</option>
          {value && !targets.includes(value) && <option value={value}>{value}</option>}
          {targets.map((to) => (
            <option key={to} value={to}>
              {to}
            </option>
          ))}
        </select>
      </div>
    );
  }

  /** A labelled text area (a prompt, a note). */
  function textArea(testId: string, label: string, value: string, onText: (text: string) => void) {
    return (
      <div className="field">
        <label className="field-label" htmlFor={testId}>
          {label}
        </label>
        <textarea id={testId} data-testid={testId} className="input" rows={3} value={value} onChange={(e) => onText(e.target.value)} />
      </div>
    );
  }

  /** A select of the team's agents or the study tools, each with what it is for. */
  function partSelect(testId: string, label: string, value: string, options: RoutinePart[], onPick: (name: string) => void) {
    return (
      <div className="field">
        <label className="field-label" htmlFor={testId}>
          {label}
        </label>
        <select id={testId} data-testid={testId} className="input" value={value} onChange={(e) => onPick(e.target.value)}>
          <option value="">{t("routines.none")}</option>
          {options.map((a) => (
            <option key={a.name} value={a.name} title={a.description}>
              {a.name}
            </option>
          ))}
        </select>
      </div>
    );
  }

  return (
    <aside className="routine-panel stack" data-testid="routine-panel" aria-label={t("routines.panel.title", { id })}>
      <div className="routine-panel-head">
        <strong>
          {t(typeKey(node.type))} · <span data-testid="routine-panel-id">{id}</span>
        </strong>
        <button type="button" className="btn btn-ghost" data-testid="routine-panel-close" onClick={() => onSelect(null)}>
          {t("routines.panel.close")}
        </button>
      </div>

      {node.type === "agent" && (
        <>
          {partSelect("rpanel-agent", t("routines.agent"), node.agent, parts?.agents ?? [], (agent) =>
            set((n) => (n.type === "agent" ? { ...n, agent } : n)),
          )}
          {textArea("rpanel-prompt", t("routines.prompt"), node.prompt, (prompt) =>
            set((n) => (n.type === "agent" ? { ...n, prompt } : n)),
          )}
        </>
      )}

      {node.type === "tool" && (
        <>
          {partSelect("rpanel-tool", t("routines.tool"), node.tool, parts?.tools ?? [], (tool) =>
            set((n) => (n.type === "tool" ? { ...n, tool } : n)),
          )}
          <ArgsField key={id} args={node.args} onChange={(args) => set((n) => (n.type === "tool" ? { ...n, args } : n))} />
        </>
      )}

      {node.type === "recite" && (
        <div className="field">
          <label className="field-label" htmlFor="rpanel-material">
            {t("routines.material")}
          </label>
          <select
            id="rpanel-material"
            data-testid="rpanel-material"
            className="input"
            value={node.material}
            onChange={(e) => set((n) => (n.type === "recite" ? { ...n, material: e.target.value } : n))}
          >
            <option value="">{t("routines.none")}</option>
            {node.material && !materials.some((m) => m.title === node.material) && <option value={node.material}>{node.material}</option>}
            {materials.map((m) => (
              <option key={m.id} value={m.title}>
                {m.title}
              </option>
            ))}
          </select>
        </div>
      )}

      {node.type === "notify_parent" && (
        <>
          {textArea("rpanel-message", t("routines.message"), node.message, (message) =>
            set((n) => (n.type === "notify_parent" ? { ...n, message } : n)),
          )}
          <p className="field-hint">{t("routines.messageHint")}</p>
        </>
      )}

      {node.type === "condition" && (
        <div className="stack routine-branches">
          <p className="field-hint">{t("routines.conditionHint")}</p>
          {node.branches.map((b, i) => (
            <div key={i} className="routine-branch" data-testid="rpanel-branch">
              <div className="field">
                <label className="field-label" htmlFor={`rpanel-keyword-${i}`}>
                  {t("routines.keyword")}
                </label>
                <input
                  id={`rpanel-keyword-${i}`}
                  data-testid={`rpanel-keyword-${i}`}
                  className="input"
                  value={b.keyword}
                  onChange={(e) =>
                    set((n) =>
                      n.type === "condition"
                        ? { ...n, branches: n.branches.map((x, j) => (j === i ? { ...x, keyword: e.target.value } : x)) }
                        : n,
                    )
                  }
                />
              </div>
              {targetSelect(`rpanel-branch-to-${i}`, t("routines.branchTo"), b.to, `branch-${i}`)}
              <button
                type="button"
                className="btn btn-ghost"
                data-testid={`rpanel-branch-remove-${i}`}
                onClick={() => set((n) => (n.type === "condition" ? { ...n, branches: n.branches.filter((_, j) => j !== i) } : n))}
              >
                {t("routines.branchRemove")}
              </button>
            </div>
          ))}
          <button
            type="button"
            className="btn btn-secondary"
            data-testid="rpanel-branch-add"
            onClick={() => set((n) => (n.type === "condition" ? { ...n, branches: [...n.branches, { keyword: "", to: "" }] } : n))}
          >
            {t("routines.branchAdd")}
          </button>
          {targetSelect("rpanel-default", t("routines.default"), node.default ?? "", "default")}
        </div>
      )}

      {node.type !== "end" && node.type !== "condition" && targetSelect("rpanel-next", t("routines.next"), node.next ?? "", "next")}

      {problems.length > 0 && (
        <ul className="routine-panel-problems" data-testid="rpanel-problems">
          {problems.map((p, i) => (
            <li key={i}>{problemWords(t, p)}</li>
          ))}
        </ul>
      )}
      {output !== null && (
        <div className="field">
          <span className="field-label">{t("routines.output")}</span>
          <pre className="routine-output" data-testid="rpanel-output">
            {output}
          </pre>
        </div>
      )}
      <button
        type="button"
        className="btn btn-ghost"
        data-testid="rpanel-remove"
        onClick={() => {
          onChange(removeNode(routine, id));
          onSelect(null);
        }}
      >
        {t("routines.removeNode")}
      </button>
    </aside>
  );
}

/** A tool's arguments as JSON; kept as typed until it parses to an object. */
function ArgsField({ args, onChange }: { args: unknown; onChange: (args: unknown) => void }) {
  const t = useT();
  const [text, setText] = useState(() => JSON.stringify(args ?? {}));
  const [bad, setBad] = useState(false);
  useEffect(() => {
    setBad(false);
  }, [args]);
  return (
    <div className="field">
      <label className="field-label" htmlFor="rpanel-args">
        {t("routines.args")}
      </label>
      <input
        id="rpanel-args"
        data-testid="rpanel-args"
        className="input"
        value={text}
        aria-invalid={bad}
        onChange={(e) => {
          setText(e.target.value);
          try {
            const parsed: unknown = JSON.parse(e.target.value || "{}");
            if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) throw new Error("not an object");
            onChange(parsed);
          } catch {
            setBad(true);
          }
        }}
      />
      {bad ? <p className="field-error">{t("routines.argsInvalid")}</p> : <p className="field-hint">{t("routines.argsHint")}</p>}
    </div>
  );
}
