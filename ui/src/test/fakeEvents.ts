/**
 * Stand-in for `src/events.ts` in unit tests:
 *
 *   vi.mock("../events", () => import("../test/fakeEvents"));
 *   emit("practice://task", {...});
 */
import { act } from "@testing-library/react";
import type { EventName, EventPayloads } from "../events";

type Handler = (payload: unknown) => void;
const handlers = new Map<string, Set<Handler>>();

export function subscribe<K extends EventName>(name: K, handler: (payload: EventPayloads[K]) => void): () => void {
  const set = handlers.get(name) ?? new Set<Handler>();
  handlers.set(name, set);
  set.add(handler as Handler);
  return () => {
    set.delete(handler as Handler);
  };
}

/** Delivers one event to every current subscriber, inside `act`. */
export function emit<K extends EventName>(name: K, payload: EventPayloads[K]) {
  act(() => {
    for (const h of [...(handlers.get(name) ?? [])]) h(payload);
  });
}

export function listenerCount(name: EventName): number {
  return handlers.get(name)?.size ?? 0;
}

export function resetEvents() {
  handlers.clear();
}
