import { describe, expect, it } from "vitest";
import { applyPatch, PatchError } from "./jsonPatch";

describe("JSON Patch", () => {
  const doc = { todos: [{ content: "a", status: "pending" }], title: "x" };

  it("replaces, adds, removes without touching the original", () => {
    const out = applyPatch(doc, [
      { op: "replace", path: "/todos/0/status", value: "completed" },
      { op: "add", path: "/todos/-", value: { content: "b", status: "pending" } },
      { op: "add", path: "/todos/0", value: { content: "first", status: "in_progress" } },
      { op: "remove", path: "/title" },
    ]);
    expect(out).toEqual({
      todos: [
        { content: "first", status: "in_progress" },
        { content: "a", status: "completed" },
        { content: "b", status: "pending" },
      ],
    });
    expect(doc).toEqual({ todos: [{ content: "a", status: "pending" }], title: "x" });
  });

  it("replaces a whole list (what the agent sends for write_todos) and the whole document", () => {
    expect(applyPatch(doc, [{ op: "replace", path: "/todos", value: [] }]).todos).toEqual([]);
    expect(applyPatch(doc, [{ op: "replace", path: "", value: { todos: [] } }])).toEqual({ todos: [] });
  });

  it("moves, copies, tests and unescapes ~0 ~1", () => {
    const out = applyPatch({ "a/b": 1, "m~n": 2 } as Record<string, unknown>, [
      { op: "copy", from: "/a~1b", path: "/c" },
      { op: "move", from: "/m~0n", path: "/d" },
      { op: "test", path: "/c", value: 1 },
    ]);
    expect(out).toEqual({ "a/b": 1, c: 1, d: 2 });
  });

  it("refuses ops that do not fit", () => {
    expect(() => applyPatch(doc, [{ op: "replace", path: "/todos/5", value: 1 }])).toThrow(PatchError);
    expect(() => applyPatch(doc, [{ op: "remove", path: "/nope" }])).toThrow(PatchError);
    expect(() => applyPatch(doc, [{ op: "add", path: "/no/parent", value: 1 }])).toThrow(PatchError);
    expect(() => applyPatch(doc, [{ op: "test", path: "/title", value: "y" }])).toThrow(PatchError);
    expect(() => applyPatch(doc, [{ op: "add", path: "todos", value: 1 }])).toThrow(PatchError);
  });
});
