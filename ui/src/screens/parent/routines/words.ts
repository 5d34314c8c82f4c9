/**
 * The editor's words for the core's routine problems (one sentence per code
 * of `ROUTINE_PROBLEM_CODES`, in zh-CN and en; a code the UI does not know
 * shows the core's English message) and for node kinds and run states.
 */
import type { MessageKey, TFunction } from "../../../i18n";
import type { RoutineProblem } from "../../../protocol";
import type { NodeType } from "./graph";

/** The table key of a problem code (`routine.no_end` → `routines.problem.no_end`). */
export function problemKey(code: string): MessageKey {
  return `routines.problem.${code.replace(/^routine\./, "")}` as MessageKey;
}

/** A problem in the user's language (the node it is on filled in). */
export function problemWords(t: TFunction, p: RoutineProblem): string {
  const key = problemKey(p.code);
  const text = t(key, { node: p.node ?? "" });
  return text === key ? p.message : text;
}

export function typeKey(type: NodeType): MessageKey {
  return `routines.type.${type}` as MessageKey;
}
