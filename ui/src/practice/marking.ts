/**
 * Places a verdict's errors on the reference text, line by line.
 *
 * An error says `line` (1-based) and `offset` (0-based, in units of that
 * line: one Chinese character, or one word). The line text may be the
 * checker's normalized line (characters run together, words spaced) or the
 * original line with punctuation: punctuation and spaces are kept for
 * display but never counted as units, so offsets land on the same place
 * either way.
 */
import type { RecitationError } from "../api";

export interface Token {
  text: string;
  /** True for a counted unit (a hanzi or a word); false for punctuation and spaces. */
  unit: boolean;
}

const HAN = /\p{Script=Han}/u;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const APOSTROPHE = /['’]/;

/** Splits text into units (each hanzi; each word, contractions kept whole) and the gaps between them. */
export function tokenize(text: string): Token[] {
  const chars = Array.from(text);
  const out: Token[] = [];
  let i = 0;
  while (i < chars.length) {
    const c = chars[i];
    if (HAN.test(c)) {
      out.push({ text: c, unit: true });
      i += 1;
    } else if (WORD_CHAR.test(c)) {
      let j = i + 1;
      while (j < chars.length) {
        const d = chars[j];
        if (WORD_CHAR.test(d) && !HAN.test(d)) j += 1;
        else if (APOSTROPHE.test(d) && j + 1 < chars.length && WORD_CHAR.test(chars[j + 1]) && !HAN.test(chars[j + 1])) j += 2;
        else break;
      }
      out.push({ text: chars.slice(i, j).join(""), unit: true });
      i = j;
    } else {
      let j = i + 1;
      while (j < chars.length && !WORD_CHAR.test(chars[j])) j += 1;
      out.push({ text: chars.slice(i, j).join(""), unit: false });
      i = j;
    }
  }
  return out;
}

export function countUnits(text: string): number {
  return tokenize(text).filter((t) => t.unit).length;
}

/**
 * Uncertain errors (speech recognition was unsure) are shown as "say it
 * again", not as mistakes. The core says so with the `uncertain` flag; a
 * `type` of "uncertain" (which the core never sends) is still read because
 * marking.test.ts asserts it.
 */
export function isUncertain(e: RecitationError): boolean {
  return e.uncertain === true || (e.type as string) === "uncertain";
}

export type Segment =
  | { kind: "text"; text: string }
  /** Reference text covered by an error (omitted, misread, out of order). */
  | { kind: "mark"; error: RecitationError; index: number; text: string }
  /** Something said that is not in the reference, placed between units. */
  | { kind: "insert"; error: RecitationError; index: number };

export interface PlacedError {
  error: RecitationError;
  /** Index in the verdict's error list. */
  index: number;
}

function coversUnits(e: RecitationError): boolean {
  return e.type !== "insertion" && e.expected.trim() !== "";
}

/** Segments of one line with its errors marked. */
export function markLine(line: string, errors: PlacedError[]): Segment[] {
  const tokens = tokenize(line);
  const unitCount = tokens.filter((t) => t.unit).length;
  const owner: (PlacedError | null)[] = new Array(unitCount).fill(null);
  const inserts = new Map<number, PlacedError[]>();
  const addInsert = (at: number, p: PlacedError) => {
    const list = inserts.get(at) ?? [];
    list.push(p);
    inserts.set(at, list);
  };

  for (const p of errors) {
    const e = p.error;
    const offset = Math.max(0, Math.floor(Number(e.offset) || 0));
    if (!coversUnits(e)) {
      addInsert(Math.min(offset, unitCount), p);
      continue;
    }
    let start = offset;
    let end = offset + Math.max(1, countUnits(e.expected));
    if (e.type === "omission" && e.kind === "line") {
      start = 0;
      end = unitCount;
    }
    end = Math.min(end, unitCount);
    if (start >= unitCount || end <= start) {
      // Nowhere to put it on this line's text: show it at the end.
      addInsert(unitCount, p);
      continue;
    }
    for (let u = start; u < end; u++) if (!owner[u]) owner[u] = p;
  }

  const out: Segment[] = [];
  let group: { p: PlacedError; text: string } | null = null;
  let gap = "";
  const flushGroup = () => {
    if (group) out.push({ kind: "mark", error: group.p.error, index: group.p.index, text: group.text });
    group = null;
  };
  const pushText = (text: string) => {
    if (!text) return;
    const last = out[out.length - 1];
    if (last && last.kind === "text") last.text += text;
    else out.push({ kind: "text", text });
  };
  const pushInserts = (at: number) => {
    for (const p of inserts.get(at) ?? []) out.push({ kind: "insert", error: p.error, index: p.index });
  };

  let u = 0;
  for (const tok of tokens) {
    if (!tok.unit) {
      if (group) gap += tok.text;
      else pushText(tok.text);
      continue;
    }
    const p = owner[u];
    if (group && p === group.p && !inserts.has(u)) {
      group.text += gap + tok.text;
      gap = "";
    } else {
      flushGroup();
      pushText(gap);
      gap = "";
      pushInserts(u);
      if (p) group = { p, text: tok.text };
      else pushText(tok.text);
    }
    u += 1;
  }
  flushGroup();
  pushText(gap);
  pushInserts(unitCount);
  return out;
}

export interface MarkedText {
  /** One entry per reference line. */
  lines: Segment[][];
  /** Errors whose line is not in `lines` (shown below the text). */
  unplaced: PlacedError[];
}

/** Marks every line; errors are matched to lines by their 1-based `line`. */
export function markText(lines: string[], errors: RecitationError[]): MarkedText {
  const byLine = new Map<number, PlacedError[]>();
  const unplaced: PlacedError[] = [];
  errors.forEach((error, index) => {
    const i = Math.floor(Number(error.line)) - 1;
    if (i >= 0 && i < lines.length) {
      const list = byLine.get(i) ?? [];
      list.push({ error, index });
      byLine.set(i, list);
    } else {
      unplaced.push({ error, index });
    }
  });
  return { lines: lines.map((l, i) => markLine(l, byLine.get(i) ?? [])), unplaced };
}
