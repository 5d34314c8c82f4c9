/**
 * The routine editor's pure parts: a routine (the core's graph, as saved)
 * edited node by node — added, removed, connected through a node's `next`
 * or a condition's branches and default —, laid out by depth when it has no
 * positions, drawn as React Flow nodes and edges, the validator's problems
 * put on the nodes at fault, and a run's events turned into each node's
 * state (running / done / failed / waiting) and output. No checking here:
 * the core's validator (`routine_check`) says what is wrong.
 */
import type { Edge, Node } from "@xyflow/react";
import type { NodePosition, Routine, RoutineEvent, RoutineNode, RoutineProblem, RoutineRunView } from "../../../protocol";

export type NodeType = RoutineNode["type"];
export const NODE_TYPES: NodeType[] = ["start", "agent", "tool", "condition", "recite", "notify_parent", "end"];

/** Where an edge leaves a node: its `next`, a condition's branch (by index) or its default. */
export type HandleId = "next" | "default" | `branch-${number}`;

/** A node of `type` with empty fields (the validator says what is missing). */
export function blankNode(type: NodeType, id: string, position: NodePosition): RoutineNode {
  const base = { id, position, next: null };
  switch (type) {
    case "start":
    case "end":
      return { ...base, type };
    case "agent":
      return { ...base, type, agent: "", prompt: "" };
    case "tool":
      return { ...base, type, tool: "", args: {} };
    case "condition":
      return { ...base, type, branches: [{ keyword: "", to: "" }], default: null };
    case "recite":
      return { ...base, type, material: "" };
    case "notify_parent":
      return { ...base, type, message: "" };
  }
}

/** An id for a new node of `type` that no node has: `start`, `end`, else `agent-1`, `agent-2`, … */
export function freshId(routine: Routine, type: NodeType): string {
  const taken = new Set(routine.nodes.map((n) => n.id));
  if ((type === "start" || type === "end") && !taken.has(type)) return type;
  for (let i = 1; ; i++) {
    const id = `${type}-${i}`;
    if (!taken.has(id)) return id;
  }
}

/** About how much room a node takes on the canvas. */
const NODE_W = 200;
const NODE_H = 110;

/** A place for a new node where no node is: right of `near` (or of the first column), going down until free. */
export function freePlace(routine: Routine, near?: NodePosition): NodePosition {
  const from = near ? { x: near.x + LAYER_GAP, y: near.y } : { x: 40 + LAYER_GAP, y: 40 };
  const free = (p: NodePosition) =>
    routine.nodes.every((n) => !n.position || Math.abs(n.position.x - p.x) >= NODE_W || Math.abs(n.position.y - p.y) >= NODE_H);
  let p = from;
  for (let row = 0; !free(p) && row < routine.nodes.length; row++) p = { x: from.x, y: from.y + (row + 1) * ROW_GAP };
  return p;
}

/** Adds a blank node of `type` in a free place (right of `near` when given); returns the routine and the new id. */
export function addNode(routine: Routine, type: NodeType, near?: NodePosition): { routine: Routine; id: string } {
  const id = freshId(routine, type);
  const node = blankNode(type, id, freePlace(routine, near));
  return { routine: { ...routine, nodes: [...routine.nodes, node] }, id };
}

export function updateNode(routine: Routine, id: string, change: (node: RoutineNode) => RoutineNode): Routine {
  return { ...routine, nodes: routine.nodes.map((n) => (n.id === id ? change(n) : n)) };
}

/** Removes the node `id` and every way into it (those nodes then say they lead nowhere). */
export function removeNode(routine: Routine, id: string): Routine {
  return {
    ...routine,
    nodes: routine.nodes
      .filter((n) => n.id !== id)
      .map((n) => {
        let out: RoutineNode = n.next === id ? { ...n, next: null } : n;
        if (out.type === "condition") {
          out = {
            ...out,
            branches: out.branches.map((b) => (b.to === id ? { ...b, to: "" } : b)),
            default: out.default === id ? null : out.default,
          };
        }
        return out;
      }),
  };
}

/** Where each way out of `node` leads: its handle, the node it leads to ("" when not yet set) and the branch keyword. */
export function waysOut(node: RoutineNode): { handle: HandleId; to: string; keyword?: string }[] {
  if (node.type === "condition") {
    return [
      ...node.branches.map((b, i) => ({ handle: `branch-${i}` as HandleId, to: b.to, keyword: b.keyword })),
      { handle: "default" as HandleId, to: node.default ?? "" },
    ];
  }
  if (node.type === "end") return [];
  return [{ handle: "next", to: node.next ?? "" }];
}

/** Points the way out `handle` of `source` at `target` ("" or null: at nothing). */
export function connect(routine: Routine, source: string, handle: HandleId, target: string | null): Routine {
  const to = target ?? "";
  return updateNode(routine, source, (n) => {
    if (n.type === "condition") {
      if (handle === "default") return { ...n, default: to || null };
      const i = Number(handle.slice("branch-".length));
      if (!handle.startsWith("branch-") || !(i >= 0 && i < n.branches.length)) return n;
      return { ...n, branches: n.branches.map((b, j) => (j === i ? { ...b, to } : b)) };
    }
    if (n.type === "end" || handle !== "next") return n;
    return { ...n, next: to || null };
  });
}

/** Each node's depth: the longest way to it from the start (nodes the start does not reach: none). */
export function depths(routine: Routine): Map<string, number> {
  const byId = new Map(routine.nodes.map((n) => [n.id, n]));
  const depth = new Map<string, number>();
  const start = routine.nodes.find((n) => n.type === "start");
  if (!start) return depth;
  depth.set(start.id, 0);
  // Relax along edges; a cycle cannot push depths past the node count.
  const limit = routine.nodes.length;
  let changed = true;
  for (let round = 0; changed && round <= limit; round++) {
    changed = false;
    for (const [id, d] of [...depth]) {
      const node = byId.get(id);
      if (!node) continue;
      for (const { to } of waysOut(node)) {
        if (!byId.has(to) || d + 1 > limit) continue;
        if ((depth.get(to) ?? -1) < d + 1) {
          depth.set(to, d + 1);
          changed = true;
        }
      }
    }
  }
  return depth;
}

export const LAYER_GAP = 240;
export const ROW_GAP = 130;

/**
 * Gives every node without a position one: a column per depth from the start
 * (left to right), the nodes of a column one below the other in list order;
 * nodes the start does not reach go in a column after the last.
 */
export function autoLayout(routine: Routine): Routine {
  if (routine.nodes.every((n) => n.position)) return routine;
  const depth = depths(routine);
  const last = Math.max(-1, ...depth.values());
  const rows = new Map<number, number>();
  return {
    ...routine,
    nodes: routine.nodes.map((n) => {
      if (n.position) return n;
      const column = depth.get(n.id) ?? last + 1;
      const row = rows.get(column) ?? 0;
      rows.set(column, row + 1);
      return { ...n, position: { x: 40 + column * LAYER_GAP, y: 40 + row * ROW_GAP } };
    }),
  };
}

/** Every node placed again by depth, as a routine without positions is (the editor's "tidy up"). */
export function relayout(routine: Routine): Routine {
  return autoLayout({ ...routine, nodes: routine.nodes.map((n) => ({ ...n, position: undefined })) });
}

/** The problems on each node of `routine`, and those on none (or on a node it does not have). */
export function problemsByNode(routine: Routine, problems: RoutineProblem[]) {
  const ids = new Set(routine.nodes.map((n) => n.id));
  const byNode: Record<string, RoutineProblem[]> = {};
  const general: RoutineProblem[] = [];
  for (const p of problems) {
    if (p.node && ids.has(p.node)) (byNode[p.node] ??= []).push(p);
    else general.push(p);
  }
  return { byNode, general };
}

export type NodeRunState = "running" | "done" | "failed" | "waiting";

/** A run as the editor shows it: each node's state and output, and how the run stands. */
export interface RunProgress {
  runId: string | null;
  states: Record<string, NodeRunState>;
  outputs: Record<string, string>;
  status: "running" | "finished" | "failed" | "waiting";
  /** The failing node's words, or why the run waits. */
  note: string | null;
}

export const NO_RUN: RunProgress = { runId: null, states: {}, outputs: {}, status: "running", note: null };

/** The progress after `event`. */
export function applyEvent(p: RunProgress, event: RoutineEvent): RunProgress {
  const next = { ...p, runId: event.run_id, states: { ...p.states }, outputs: { ...p.outputs } };
  switch (event.type) {
    case "node_started":
      next.states[event.node] = "running";
      break;
    case "node_output":
      next.outputs[event.node] = event.text;
      break;
    case "node_finished":
      next.states[event.node] = "done";
      break;
    case "waiting":
      next.states[event.node] = "waiting";
      next.status = "waiting";
      next.note = event.reason;
      break;
    case "failed":
      next.states[event.node] = "failed";
      next.status = "failed";
      next.note = event.message;
      break;
    case "finished":
      next.status = "finished";
      break;
  }
  return next;
}

/** A stored run as progress: its finished steps done, the node it is at waiting or failed. */
export function progressOfRun(run: RoutineRunView): RunProgress {
  const p: RunProgress = { runId: run.id, states: {}, outputs: {}, status: "running", note: null };
  for (const s of run.steps) {
    p.states[s.node] = "done";
    p.outputs[s.node] = s.output;
  }
  if (run.status === "finished" || run.status === "failed" || run.status === "waiting") p.status = run.status;
  if (run.at && (run.status === "waiting" || run.status === "failed")) p.states[run.at] = run.status === "waiting" ? "waiting" : "failed";
  return p;
}

/** What the canvas draws for one node. */
export interface FlowNodeData extends Record<string, unknown> {
  node: RoutineNode;
  problems: RoutineProblem[];
  state: NodeRunState | null;
  output: string | null;
}

export type FlowNode = Node<FlowNodeData, "routine">;

/** The routine as React Flow nodes and edges (edge ids are `source|handle`). */
export function toFlow(
  routine: Routine,
  problems: RoutineProblem[],
  progress: RunProgress,
  selected: string | null,
  defaultLabel: string,
): { nodes: FlowNode[]; edges: Edge[] } {
  const laid = autoLayout(routine);
  const { byNode } = problemsByNode(routine, problems);
  const ids = new Set(routine.nodes.map((n) => n.id));
  const nodes: FlowNode[] = laid.nodes.map((n) => ({
    id: n.id,
    type: "routine",
    position: n.position ?? { x: 0, y: 0 },
    selected: n.id === selected,
    data: { node: n, problems: byNode[n.id] ?? [], state: progress.states[n.id] ?? null, output: progress.outputs[n.id] ?? null },
  }));
  const edges: Edge[] = [];
  for (const n of routine.nodes) {
    for (const w of waysOut(n)) {
      if (!ids.has(w.to)) continue;
      edges.push({
        id: `${n.id}|${w.handle}`,
        source: n.id,
        sourceHandle: w.handle,
        target: w.to,
        label: w.handle === "default" ? defaultLabel : w.keyword,
        // The way a run is taking right now moves.
        animated: progress.states[n.id] === "done" && progress.states[w.to] === "running",
      });
    }
  }
  return { nodes, edges };
}

/** The source and handle of an edge id made by `toFlow`. */
export function edgeEnds(edgeId: string): { source: string; handle: HandleId } {
  const at = edgeId.lastIndexOf("|");
  return { source: edgeId.slice(0, at), handle: edgeId.slice(at + 1) as HandleId };
}

/** The routine assigned (or not) to the child `id`; no children is no list, as the core writes it. */
export function assign(routine: Routine, id: string, on: boolean): Routine {
  const children = (routine.children ?? []).filter((c) => c !== id).concat(on ? [id] : []);
  const { children: _, ...rest } = routine;
  return children.length > 0 ? { ...rest, children } : rest;
}

/** An empty routine: a start and an end, not yet connected. */
export function emptyRoutine(name: string): Routine {
  return {
    name,
    description: "",
    nodes: [blankNode("start", "start", { x: 40, y: 120 }), blankNode("end", "end", { x: 40 + 3 * LAYER_GAP, y: 120 })],
  };
}
