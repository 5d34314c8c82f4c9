/**
 * The practice text as hints: each line keeps its first character (Chinese)
 * or first word (English); the rest become blanks of the same length, with
 * punctuation kept, so a child sees how each line starts and how long it is.
 */

const HAN = /\p{Script=Han}/u;
const WORD = /[\p{L}\p{N}'’]+/gu;

/** The blank shown for one hidden Chinese character. */
export const HAN_BLANK = "○";

function hanHint(line: string): string {
  let shown = false;
  return Array.from(line)
    .map((ch) => {
      if (!HAN.test(ch)) return ch;
      if (!shown) {
        shown = true;
        return ch;
      }
      return HAN_BLANK;
    })
    .join("");
}

function wordHint(line: string): string {
  let shown = false;
  return line.replace(WORD, (word) => {
    if (!shown) {
      shown = true;
      return word;
    }
    return "_".repeat(Array.from(word).length);
  });
}

/** One line as a hint, in the material's language. */
export function hintLine(line: string, lang: string): string {
  return lang === "en" ? wordHint(line) : hanHint(line);
}

/** The text's non-empty lines as hints. */
export function hintLines(body: string, lang: string): string[] {
  return body
    .split(/\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l)
    .map((l) => hintLine(l, lang));
}
