/**
 * Whether the companion may use a model: one is set up and a parent agreed
 * to the notice of what is sent where (the core refuses otherwise). Kept
 * out of api.ts so screens' tests that mock the api still use it.
 */
import type { LlmSettings } from "./api";

export function modelReady(s: LlmSettings | null | undefined): boolean {
  return !!s?.model && !!s.notice?.agreed_at;
}
