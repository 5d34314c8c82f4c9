/**
 * One node on the routine canvas: its kind and id, what it does in a few
 * words, a handle to connect into it (not on the start) and one per way
 * out (its `next`; a condition's branches, each labelled with its keyword,
 * and its default), the validator's problems on it in the user's language,
 * and — during a run — its state and output.
 */
import { Handle, Position, type NodeProps } from "@xyflow/react";
import { useT } from "../../../i18n";
import type { FlowNode } from "./graph";
import { waysOut } from "./graph";
import { problemWords, typeKey } from "./words";

function summary(data: FlowNode["data"]): string {
  const n = data.node;
  switch (n.type) {
    case "agent":
      return n.agent;
    case "tool":
      return n.tool;
    case "recite":
      return n.material;
    case "notify_parent":
      return n.message;
    default:
      return "";
  }
}

export function RoutineNodeView({ data, selected }: NodeProps<FlowNode>) {
  const t = useT();
  const n = data.node;
  const ways = waysOut(n);
  const classes = ["routine-node", `routine-node-${n.type}`];
  if (selected) classes.push("is-selected");
  if (data.problems.length > 0) classes.push("has-problem");
  if (data.state) classes.push(`state-${data.state}`);
  return (
    <div className={classes.join(" ")} data-testid={`rnode-${n.id}`} data-state={data.state ?? ""} data-problems={data.problems.length}>
      {n.type !== "start" && <Handle type="target" position={Position.Left} />}
      <div className="routine-node-head">
        <span className="routine-node-type">{t(typeKey(n.type))}</span>
        <span className="routine-node-id">{n.id}</span>
      </div>
      {summary(data) && <div className="routine-node-summary">{summary(data)}</div>}
      {data.state && (
        <div className="routine-node-state" data-testid={`rnode-state-${n.id}`}>
          {t(`routines.state.${data.state}`)}
        </div>
      )}
      {data.output && (
        <div className="routine-node-output" data-testid={`rnode-output-${n.id}`} title={data.output}>
          {data.output}
        </div>
      )}
      {data.problems.map((p, i) => (
        <div key={i} className="routine-node-problem" role="note" data-testid={`rnode-problem-${n.id}`} data-code={p.code}>
          {problemWords(t, p)}
        </div>
      ))}
      {ways.length > 0 && (
        <div className="routine-node-ways">
          {ways.map((w) => (
            <div key={w.handle} className="routine-node-way">
              {n.type === "condition" && (
                <span className="routine-node-way-label">{w.handle === "default" ? t("routines.default") : w.keyword || "…"}</span>
              )}
              <Handle type="source" id={w.handle} position={Position.Right} />
            </div>
          ))}
        </div>
      )}
    </div>
  );
}
