/**
 * Typed subscriptions to the events the Rust core emits (`listen` from
 * `@tauri-apps/api/event`). Payload fields are snake_case, as sent.
 *
 * `subscribe` returns a plain synchronous unsubscribe function, so it fits a
 * `useEffect` cleanup; outside the Tauri window it quietly does nothing.
 * Unit tests replace this module with `src/test/fakeEvents.ts`.
 */
import { listen } from "@tauri-apps/api/event";
import type { LampNotice, PracticeResult, TaskStatus } from "./api";

export interface LevelEvent {
  practice_id: string;
  /** 0..1 */
  level: number;
}

export interface PartialEvent {
  practice_id: string;
  text: string;
}

export interface TaskEvent {
  practice_id: string;
  task_id: string;
  status: TaskStatus;
  error: string | null;
  result: PracticeResult | null;
}

export interface ReviewsDueEvent {
  profile_id: string;
  count: number;
}

export interface EventPayloads {
  "practice://level": LevelEvent;
  "practice://partial": PartialEvent;
  "practice://task": TaskEvent;
  "reviews://due": ReviewsDueEvent;
  "lamp://notice": LampNotice;
}

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
