import { describe, expect, it } from "vitest";
import type { ChatItem } from "../../chat/reducer";
import { withLaneRows } from "./ChatScreen";

const lane = { agent: "a", text: "", tools: [], done: false };
const task = (id: string, status: "pending" | "completed", withLane = true): ChatItem => ({
  kind: "tool",
  id,
  name: "task",
  args: "{}",
  status,
  result: null,
  argsDone: true,
  ...(withLane ? { lane } : {}),
});
const msg = (id: string): ChatItem => ({ kind: "message", id, role: "assistant", text: id, streaming: false });

describe("subagent lanes side by side", () => {
  it("groups two or more live lanes in a row, and nothing else", () => {
    const rows = withLaneRows([msg("m1"), task("t1", "pending"), task("t2", "pending"), msg("m2"), task("t3", "pending")]);
    expect(rows.map((r) => (Array.isArray(r) ? r.map((c) => c.id) : r.id))).toEqual(["m1", ["t1", "t2"], "m2", "t3"]);
    // Done lanes fold back into ordinary cards.
    const done = withLaneRows([task("t1", "completed"), task("t2", "completed"), task("t3", "pending", false)]);
    expect(done.every((r) => !Array.isArray(r))).toBe(true);
  });
});
