/**
 * A small RFC 6902 JSON Patch, enough for AG-UI `STATE_DELTA` events:
 * add, remove, replace, move, copy and test on JSON Pointer (RFC 6901) paths.
 * Pure: returns a new document and never changes the one given.
 */
import type { JsonPatchOp } from "../api";

export class PatchError extends Error {}

function parsePointer(path: string): string[] {
  if (path === "") return [];
  if (!path.startsWith("/")) throw new PatchError(`bad JSON pointer ${JSON.stringify(path)}`);
  return path
    .slice(1)
    .split("/")
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function clone<T>(v: T): T {
  return v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T);
}

function get(doc: unknown, parts: string[]): unknown {
  let cur: unknown = doc;
  for (const p of parts) {
    if (Array.isArray(cur)) cur = cur[Number(p)];
    else if (cur && typeof cur === "object") cur = (cur as Record<string, unknown>)[p];
    else return undefined;
  }
  return cur;
}

type Container = Record<string, unknown> | unknown[];

function parentOf(doc: unknown, parts: string[]): Container {
  const parent = get(doc, parts.slice(0, -1));
  if (!parent || typeof parent !== "object") throw new PatchError(`no parent for /${parts.join("/")}`);
  return parent as Container;
}

function arrayIndex(arr: unknown[], key: string, forAdd: boolean): number {
  if (forAdd && key === "-") return arr.length;
  const i = Number(key);
  const max = forAdd ? arr.length : arr.length - 1;
  if (!/^\d+$/.test(key) || i > max) throw new PatchError(`index ${key} is out of range`);
  return i;
}

function addAt(doc: unknown, parts: string[], value: unknown): unknown {
  if (parts.length === 0) return value;
  const parent = parentOf(doc, parts);
  const key = parts[parts.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, true), 0, value);
  else parent[key] = value;
  return doc;
}

function removeAt(doc: unknown, parts: string[]): unknown {
  if (parts.length === 0) return undefined;
  const parent = parentOf(doc, parts);
  const key = parts[parts.length - 1];
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, key, false), 1);
  else {
    if (!(key in parent)) throw new PatchError(`nothing at /${parts.join("/")} to remove`);
    delete parent[key];
  }
  return doc;
}

function replaceAt(doc: unknown, parts: string[], value: unknown): unknown {
  if (parts.length === 0) return value;
  const parent = parentOf(doc, parts);
  const key = parts[parts.length - 1];
  if (Array.isArray(parent)) parent[arrayIndex(parent, key, false)] = value;
  else parent[key] = value;
  return doc;
}

/** Applies `ops` in order to a copy of `doc`. Throws `PatchError` on an op that does not fit. */
export function applyPatch<T>(doc: T, ops: JsonPatchOp[]): T {
  let out: unknown = clone(doc);
  for (const op of ops) {
    const parts = parsePointer(op.path);
    switch (op.op) {
      case "add":
        out = addAt(out, parts, clone(op.value));
        break;
      case "remove":
        out = removeAt(out, parts);
        break;
      case "replace":
        out = replaceAt(out, parts, clone(op.value));
        break;
      case "move": {
        const from = parsePointer(op.from ?? "");
        const value = get(out, from);
        out = removeAt(out, from);
        out = addAt(out, parts, value);
        break;
      }
      case "copy":
        out = addAt(out, parts, clone(get(out, parsePointer(op.from ?? ""))));
        break;
      case "test":
        if (JSON.stringify(get(out, parts)) !== JSON.stringify(op.value)) throw new PatchError(`test failed at ${op.path}`);
        break;
      default:
        throw new PatchError(`unknown op ${JSON.stringify((op as { op: unknown }).op)}`);
    }
  }
  return out as T;
}
