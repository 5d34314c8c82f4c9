import { describe, expect, it } from "vitest";
import { recErr } from "../test/samples";
import { countUnits, isUncertain, markLine, markText, tokenize, type Segment } from "./marking";

const units = (s: string) => tokenize(s).filter((t) => t.unit).map((t) => t.text);
/** A compact picture of the segments: plain text as is, marks as [type:text], inserts as <type:actual>. */
const picture = (segs: Segment[]) =>
  segs
    .map((s) => (s.kind === "text" ? s.text : s.kind === "mark" ? `[${s.error.type}:${s.text}]` : `<${s.error.type}:${s.error.actual}>`))
    .join("");

describe("tokenize", () => {
  it("counts each hanzi and each word as one unit, never punctuation or spaces", () => {
    expect(units("床前明月光，疑是地上霜。")).toEqual(["床", "前", "明", "月", "光", "疑", "是", "地", "上", "霜"]);
    expect(units("Twinkle, twinkle, little star!")).toEqual(["Twinkle", "twinkle", "little", "star"]);
    expect(units("I couldn't see")).toEqual(["I", "couldn't", "see"]);
    expect(units("我爱 ABC 和 2 只猫")).toEqual(["我", "爱", "ABC", "和", "2", "只", "猫"]);
    expect(countUnits("  ，。 ")).toBe(0);
    // The text is kept whole, gaps included.
    expect(tokenize("a, b").map((t) => t.text).join("")).toBe("a, b");
  });
});

describe("placing errors on a line", () => {
  it("marks a substitution on the unit at its offset", () => {
    const e = recErr({ type: "substitution", line: 1, offset: 1, expected: "头", actual: "偷" });
    expect(picture(markLine("举头望明月", [{ error: e, index: 0 }]))).toBe("举[substitution:头]望明月");
  });

  it("covers as many units as the expected text has, across punctuation in the original line", () => {
    const e = recErr({ type: "omission", line: 1, offset: 3, expected: "月光疑", actual: "" });
    expect(picture(markLine("床前明月光，疑是地上霜。", [{ error: e, index: 0 }]))).toBe("床前明[omission:月光，疑]是地上霜。");
  });

  it("marks a whole missed line", () => {
    const e = recErr({ type: "omission", kind: "line", line: 4, offset: 0, expected: "低头思故乡" });
    expect(picture(markLine("低头思故乡", [{ error: e, index: 0 }]))).toBe("[omission:低头思故乡]");
  });

  it("puts an insertion between units, and at the end when its offset is the line's length", () => {
    const mid = recErr({ type: "insertion", kind: "extra", line: 1, offset: 2, expected: "", actual: "的" });
    const end = recErr({ type: "insertion", kind: "extra", line: 1, offset: 5, expected: "", actual: "啊" });
    expect(
      picture(
        markLine("床前明月光", [
          { error: mid, index: 0 },
          { error: end, index: 1 },
        ]),
      ),
    ).toBe("床前<insertion:的>明月光<insertion:啊>");
  });

  it("uses word offsets for English", () => {
    const e = recErr({ type: "order", kind: "swap", line: 1, offset: 2, expected: "little star", actual: "star little" });
    expect(picture(markLine("twinkle twinkle little star", [{ error: e, index: 0 }]))).toBe(
      "twinkle twinkle [order:little star]",
    );
    const sub = recErr({ type: "substitution", line: 1, offset: 0, expected: "how", actual: "now" });
    expect(picture(markLine("How I wonder what you are!", [{ error: sub, index: 0 }]))).toBe(
      "[substitution:How] I wonder what you are!",
    );
  });

  it("keeps two neighbouring errors apart", () => {
    const a = recErr({ type: "substitution", line: 1, offset: 0, expected: "床", actual: "窗" });
    const b = recErr({ type: "substitution", line: 1, offset: 1, expected: "前", actual: "钱" });
    const segs = markLine("床前明月光", [
      { error: a, index: 0 },
      { error: b, index: 1 },
    ]);
    expect(picture(segs)).toBe("[substitution:床][substitution:前]明月光");
    expect(segs.filter((s) => s.kind === "mark").map((s) => (s as { index: number }).index)).toEqual([0, 1]);
  });

  it("clamps an error that runs past the line's end and shows one that starts past it at the end", () => {
    const long = recErr({ type: "omission", line: 1, offset: 3, expected: "月光疑是", actual: "" });
    expect(picture(markLine("床前明月光", [{ error: long, index: 0 }]))).toBe("床前明[omission:月光]");
    const past = recErr({ type: "substitution", line: 1, offset: 9, expected: "霜", actual: "双" });
    expect(picture(markLine("床前明月光", [{ error: past, index: 0 }]))).toBe("床前明月光<substitution:双>");
  });
});

describe("marking a whole text", () => {
  it("matches errors to their 1-based line and lists those on no line separately", () => {
    const errors = [
      recErr({ type: "substitution", line: 3, offset: 1, expected: "头", actual: "偷" }),
      recErr({ type: "omission", kind: "line", line: 4, offset: 0, expected: "低头思故乡" }),
      recErr({ type: "insertion", line: 9, offset: 0, actual: "嗯" }),
    ];
    const marked = markText(["床前明月光", "疑是地上霜", "举头望明月", "低头思故乡"], errors);
    expect(marked.lines.map(picture)).toEqual(["床前明月光", "疑是地上霜", "举[substitution:头]望明月", "[omission:低头思故乡]"]);
    expect(marked.unplaced.map((p) => p.index)).toEqual([2]);
  });

  it("knows an uncertain error by its flag or by its type", () => {
    expect(isUncertain(recErr({ type: "substitution", line: 1, offset: 0, uncertain: true }))).toBe(true);
    expect(isUncertain(recErr({ type: "uncertain", line: 1, offset: 0 }))).toBe(true);
    expect(isUncertain(recErr({ type: "substitution", line: 1, offset: 0 }))).toBe(false);
  });
});
