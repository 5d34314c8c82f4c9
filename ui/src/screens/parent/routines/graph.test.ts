import { describe, expect, it } from "vitest";
import { translate } from "../../../i18n";
import { ROUTINE_PROBLEM_CODES, type Routine, type RoutineEvent, type RoutineNode } from "../../../protocol";
import {
  LAYER_GAP,
  NO_RUN,
  ROW_GAP,
  addNode,
  applyEvent,
  assign,
  autoLayout,
  connect,
  depths,
  edgeEnds,
  emptyRoutine,
  freshId,
  problemsByNode,
  progressOfRun,
  relayout,
  removeNode,
  toFlow,
} from "./graph";
import { problemKey, problemWords } from "./words";

/** The evening review as the CLI's file has it: no positions. */
function evening(): Routine {
  const nodes: RoutineNode[] = [
    { id: "start", type: "start", next: "due" },
    { id: "due", type: "tool", tool: "due_reviews", args: {}, next: "plan" },
    { id: "plan", type: "agent", agent: "learning-scheduler", prompt: "今晚先背什么", next: "choose" },
    { id: "choose", type: "condition", branches: [{ keyword: "静夜思", to: "recite" }], default: "quiz" },
    { id: "recite", type: "recite", material: "静夜思", next: "note" },
    { id: "quiz", type: "agent", agent: "poetry-tutor", prompt: "出三道题", next: "note" },
    { id: "note", type: "notify_parent", message: "今晚：{last}", next: "end" },
    { id: "end", type: "end" },
  ];
  return { name: "evening-review", description: "", nodes };
}

const at = (r: Routine, id: string) => r.nodes.find((n) => n.id === id)!;

describe("the routine as a graph", () => {
  it("lays a routine without positions out in columns by depth, rows in list order", () => {
    const laid = autoLayout(evening());
    const col = (id: string) => (at(laid, id).position!.x - 40) / LAYER_GAP;
    const row = (id: string) => (at(laid, id).position!.y - 40) / ROW_GAP;
    expect(["start", "due", "plan", "choose", "recite", "note", "end"].map(col)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    // The two branches share a column, one below the other.
    expect([col("quiz"), row("recite"), row("quiz")]).toEqual([4, 0, 1]);
    // The longest way decides the depth: note comes after both branches.
    expect(depths(evening()).get("note")).toBe(5);
  });

  it("keeps the positions a routine has, and puts nodes the start does not reach after the last column", () => {
    const r = evening();
    r.nodes[0].position = { x: 7, y: 9 };
    r.nodes.push({ id: "island", type: "notify_parent", message: "?", next: "end" });
    const laid = autoLayout(r);
    expect(at(laid, "start").position).toEqual({ x: 7, y: 9 });
    expect(at(laid, "island").position).toEqual({ x: 40 + 7 * LAYER_GAP, y: 40 });
    // A cycle does not make the layout run away.
    const loop = evening();
    at(loop, "note").next = "plan";
    expect(Math.max(...depths(loop).values())).toBeLessThanOrEqual(loop.nodes.length);
  });

  it("tidies a routine up: every node placed again by depth, whatever it had", () => {
    const r = evening();
    r.nodes.forEach((n, i) => (n.position = { x: 999 - i, y: 5 }));
    expect(relayout(r)).toEqual(autoLayout(evening()));
  });

  it("connects a node's next, a condition's branch and its default, and disconnects them", () => {
    let r = emptyRoutine("t");
    const added = addNode(r, "condition", { x: 10, y: 20 });
    r = added.routine;
    expect(added.id).toBe("condition-1");
    expect(at(r, "condition-1").position).toEqual({ x: 250, y: 20 });
    r = connect(r, "start", "next", "condition-1");
    r = connect(r, "condition-1", "branch-0", "end");
    r = connect(r, "condition-1", "default", "end");
    expect(at(r, "start").next).toBe("condition-1");
    expect(at(r, "condition-1")).toMatchObject({ branches: [{ keyword: "", to: "end" }], default: "end" });
    // An end has no way out; a branch that does not exist is left alone.
    expect(connect(r, "end", "next", "start")).toEqual(r);
    expect(connect(r, "condition-1", "branch-3", "start")).toEqual(r);

    const flow = toFlow(r, [], NO_RUN, null, "其他情况");
    expect(flow.edges.map((e) => [e.id, e.target, e.label])).toEqual([
      ["start|next", "condition-1", undefined],
      ["condition-1|branch-0", "end", ""],
      ["condition-1|default", "end", "其他情况"],
    ]);
    const { source, handle } = edgeEnds("condition-1|branch-0");
    r = connect(r, source, handle, null);
    r = connect(r, "condition-1", "default", null);
    expect(at(r, "condition-1")).toMatchObject({ branches: [{ to: "" }], default: null });
  });

  it("removing a node removes every way into it", () => {
    const r = removeNode(evening(), "note");
    expect(r.nodes.map((n) => n.id)).not.toContain("note");
    expect(at(r, "recite").next).toBeNull();
    expect(at(r, "quiz").next).toBeNull();
    const r2 = removeNode(evening(), "quiz");
    expect(at(r2, "choose")).toMatchObject({ default: null });
    const r3 = removeNode(evening(), "recite");
    expect(at(r3, "choose")).toMatchObject({ branches: [{ keyword: "静夜思", to: "" }] });
  });

  it("puts a new node where no node is", () => {
    let r = emptyRoutine("t");
    const places: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const added = addNode(r, "agent");
      r = added.routine;
      places.push(at(r, added.id).position);
    }
    // Right of the start's column, one below the other (the start and end are further apart).
    expect(places).toEqual([
      { x: 40 + LAYER_GAP, y: 40 },
      { x: 40 + LAYER_GAP, y: 40 + ROW_GAP },
      { x: 40 + LAYER_GAP, y: 40 + 2 * ROW_GAP },
    ]);
    // Next to the selected node, below what is already there.
    const near = addNode(r, "end", at(r, "start").position!);
    expect(at(near.routine, near.id).position).toEqual({ x: 40 + LAYER_GAP, y: 120 + 3 * ROW_GAP });
  });

  it("assigns a routine to children and back to none (no list, as the core writes it)", () => {
    const r = emptyRoutine("t");
    const both = assign(assign(r, "c1", true), "c2", true);
    expect(both.children).toEqual(["c1", "c2"]);
    expect(assign(both, "c1", true).children).toEqual(["c2", "c1"]);
    expect(assign(assign(both, "c1", false), "c2", false)).toEqual(r);
    expect("children" in assign(assign(both, "c1", false), "c2", false)).toBe(false);
  });

  it("gives new nodes ids no node has", () => {
    const r = emptyRoutine("t");
    expect(freshId(r, "start")).toBe("start-1");
    expect(freshId({ ...r, nodes: [] }, "end")).toBe("end");
    expect(freshId(addNode(r, "tool").routine, "tool")).toBe("tool-2");
  });

  it("puts each problem on its node; the others (no node, or a node not there) are the routine's", () => {
    const r = evening();
    const { byNode, general } = problemsByNode(r, [
      { code: "routine.missing_next", node: "plan", message: "m" },
      { code: "routine.no_end", message: "n" },
      { code: "routine.duplicate_id", node: "gone", message: "d" },
      { code: "routine.incomplete", node: "plan", message: "i" },
    ]);
    expect(Object.keys(byNode)).toEqual(["plan"]);
    expect(byNode.plan.map((p) => p.code)).toEqual(["routine.missing_next", "routine.incomplete"]);
    expect(general.map((p) => p.code)).toEqual(["routine.no_end", "routine.duplicate_id"]);
    const flow = toFlow(r, [{ code: "routine.missing_next", node: "plan", message: "m" }], NO_RUN, "plan", "x");
    const plan = flow.nodes.find((n) => n.id === "plan")!;
    expect(plan.data.problems).toHaveLength(1);
    expect(plan.selected).toBe(true);
    expect(flow.nodes.find((n) => n.id === "due")!.data.problems).toEqual([]);
  });
});

describe("a run's events as node states", () => {
  const run = "r1";
  const events: RoutineEvent[] = [
    { type: "node_started", run_id: run, node: "start", kind: "start" },
    { type: "node_finished", run_id: run, node: "start" },
    { type: "node_started", run_id: run, node: "due", kind: "tool" },
    { type: "node_output", run_id: run, node: "due", text: "静夜思 due today" },
    { type: "node_finished", run_id: run, node: "due" },
    { type: "node_started", run_id: run, node: "recite", kind: "recite" },
  ];

  it("lights each node as it starts and finishes, keeps its output, and says why it waits or fails", () => {
    let p = NO_RUN;
    for (const e of events) p = applyEvent(p, e);
    expect(p.states).toEqual({ start: "done", due: "done", recite: "running" });
    expect(p.outputs).toEqual({ due: "静夜思 due today" });
    expect(p.runId).toBe(run);
    const waiting = applyEvent(p, { type: "waiting", run_id: run, node: "recite", reason: "waiting for 静夜思" });
    expect([waiting.states.recite, waiting.status, waiting.note]).toEqual(["waiting", "waiting", "waiting for 静夜思"]);
    const failed = applyEvent(p, { type: "failed", run_id: run, node: "recite", message: "no such poem" });
    expect([failed.states.recite, failed.status, failed.note]).toEqual(["failed", "failed", "no such poem"]);
    expect(applyEvent(p, { type: "finished", run_id: run }).status).toBe("finished");
    // The progress before is left as it was.
    expect(NO_RUN.states).toEqual({});
  });

  it("shows a stored run: its steps done, the node it waits on waiting", () => {
    const p = progressOfRun({
      id: run,
      routine: "evening-review",
      input: "",
      status: "waiting",
      at: "recite",
      steps: [
        { node: "start", output: "" },
        { node: "due", output: "静夜思" },
      ],
    });
    expect(p.states).toEqual({ start: "done", due: "done", recite: "waiting" });
    expect(p.outputs.due).toBe("静夜思");
    expect(p.status).toBe("waiting");
  });
});

describe("the validator's problems in the user's language", () => {
  it("every code the core's validator gives has words in zh-CN and en", () => {
    expect(ROUTINE_PROBLEM_CODES.length).toBeGreaterThan(10);
    const unsaid = ROUTINE_PROBLEM_CODES.filter((code) => {
      const key = problemKey(code);
      const zh = translate("zh-CN", key, { node: "plan" });
      const en = translate("en", key, { node: "plan" });
      return zh === key || en === key || zh === en || !/[\u4e00-\u9fff]/.test(zh) || /\{\w+\}/.test(zh + en);
    });
    expect(unsaid).toEqual([]);
  });

  it("names the node at fault, and shows the core's message for a code it does not know", () => {
    const t = (key: Parameters<typeof translate>[1], vars?: Record<string, string | number>) => translate("zh-CN", key, vars);
    expect(problemWords(t, { code: "routine.missing_next", node: "tool-1", message: "x" })).toBe("「tool-1」还没连到下一步。");
    expect(problemWords(t, { code: "routine.something_new", node: "a", message: "Something new is wrong." })).toBe(
      "Something new is wrong.",
    );
  });
});
