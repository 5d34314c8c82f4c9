/**
 * Typed subscriptions to the events the Rust core emits (`listen` from
 * `@tauri-apps/api/event`). The channels and their payload types are
 * generated from the core's `AppEvent` (./protocol.ts); fields are
 * snake_case, as sent.
 *
 * `subscribe` returns a plain synchronous unsubscribe function, so it fits a
 * `useEffect` cleanup; outside the Tauri window it quietly does nothing.
 * Unit tests replace this module with `src/test/fakeEvents.ts`.
 */
import { listen } from "@tauri-apps/api/event";
import type { AppEvent, LevelEvent, PartialEvent, ReviewsDueEvent, TaskEvent } from "./protocol";

export type { LevelEvent, PartialEvent, ReviewsDueEvent, TaskEvent };

/** Each channel's payload, read off the core's generated `AppEvent`. */
export type EventPayloads = { [E in AppEvent as E["channel"]]: E["payload"] };

export type EventName = keyof EventPayloads;

export function subscribe<K extends EventName>(name: K, handler: (payload: EventPayloads[K]) => void): () => void {
  let closed = false;
  let unlisten: (() => void) | null = null;
  try {
    listen<EventPayloads[K]>(name, (e) => {
      if (!closed) handler(e.payload);
    })
      .then((u) => {
        if (closed) u();
        else unlisten = u;
      })
      .catch(() => {
        // Not inside Tauri (plain browser, unit tests): no events to wait for.
      });
  } catch {
    // Same as above, for a synchronous failure.
  }
  return () => {
    closed = true;
    unlisten?.();
    unlisten = null;
  };
}
