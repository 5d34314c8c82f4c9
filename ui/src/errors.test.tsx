import { beforeEach, describe, expect, it, vi } from "vitest";
import { CORE_ERROR_WORDS, SAID_BY_MESSAGE, errorText, formatLockTime, localizeCoreError, type CoreError } from "./errors";
import { ERROR_CODES } from "./protocol";
import { translate, type MessageKey, type Vars } from "./i18n";
import { renderWithI18n } from "./test/helpers";

const invoke = vi.fn();
vi.mock("@tauri-apps/api/core", () => ({ invoke: (...a: unknown[]) => invoke(...a), Channel: class {} }));
const api = await import("./api");

const zh = (key: MessageKey, vars?: Vars) => translate("zh-CN", key, vars);
const en = (key: MessageKey, vars?: Vars) => translate("en", key, vars);

describe("core error codes in the user's language", () => {
  it("the start-up failures say what happened and the fix, in both languages", () => {
    const newer: CoreError = {
      code: "db.schema_too_new",
      message: "this database was written by a newer Deskmate (schema version 9; this build knows up to 4)…",
      params: { found: 9, known: 4 },
    };
    expect(localizeCoreError(newer, "zh-CN", zh)).toBe(
      "这里的数据是更新版本的同桌保存的（数据版本 9，这个同桌只认识到 4）。请把同桌更新到最新版本；数据没有被改动。",
    );
    expect(localizeCoreError(newer, "en", en)).toBe(
      "This data was saved by a newer version of Deskmate (data version 9; this one knows up to 4). Please update Deskmate; the data was left untouched.",
    );
    for (const code of ["data_dir.unusable", "data_dir.not_writable"]) {
      const dir: CoreError = { code, message: "cannot use the data directory /srv/dm: …", params: { path: "/srv/dm" } };
      expect(localizeCoreError(dir, "zh-CN", zh)).toContain("数据文件夹 /srv/dm");
      expect(localizeCoreError(dir, "zh-CN", zh)).toContain("--data-dir");
      expect(localizeCoreError(dir, "en", en)).toContain("data folder /srv/dm");
    }
  });

  it("material bodies: empty and too long", () => {
    expect(localizeCoreError({ code: "material.body_empty", message: "the text is empty" }, "zh-CN", zh)).toBe(
      "正文是空的：请输入或粘贴要背的内容。",
    );
    const long: CoreError = { code: "material.body_too_long", message: "too long", params: { chars: 1000000, max: 20000 } };
    expect(localizeCoreError(long, "zh-CN", zh)).toBe("正文太长了（1000000 个字，最多 20000 个）。请分成几段分别添加。");
    expect(localizeCoreError(long, "en", en)).toBe(
      "The text is too long (1000000 characters; at most 20000). Please add it in shorter pieces.",
    );
  });

  it("a known code without the values its sentence needs falls back to the core's message", () => {
    const e: CoreError = { code: "pin.locked", message: "locked until later", params: {} };
    expect(localizeCoreError(e, "zh-CN", zh)).toBeNull();
    expect(localizeCoreError({ ...e, params: { until: "not a time" } }, "zh-CN", zh)).toBeNull();
    expect(errorText(e)).toBe("locked until later");
  });

  it("the lock's end is a clock time in the given time zone", () => {
    expect(formatLockTime("2026-03-01T06:05:00Z", "zh-CN", "Asia/Shanghai")).toBe("14:05");
    expect(formatLockTime("2026-03-01T06:05:00Z", "en", "America/New_York")).toBe("01:05");
    expect(formatLockTime("2026-03-01T06:05:00Z", "en", "UTC")).toBe("06:05");
  });
});

describe("every code the core can send has words in both languages", () => {
  // What any sentence may need; each code's own params are a subset.
  const params = { tries_left: 3, until: "2026-03-01T06:05:00Z", name: "小明", chars: 30000, max: 20000, units: 900, found: 9, known: 4, path: "/srv/dm", words: "多读书", message: "a pairing code is 8 digits", from: "21:00", to: "07:00", file: "课本.pdf", reason: "damaged", base: "语文", question: "天为什么是蓝的", endpoint: "https://api.openai.com/v1" };

  it("each code of ERROR_CODES (generated from the core) is said in zh-CN and in en", () => {
    expect(ERROR_CODES.length).toBeGreaterThan(50);
    const unsaid: string[] = [];
    for (const code of ERROR_CODES) {
      if (SAID_BY_MESSAGE.includes(code)) continue;
      const e: CoreError = { code, message: "the core's English text", params };
      const zhText = localizeCoreError(e, "zh-CN", zh);
      const enText = localizeCoreError(e, "en", en);
      if (zhText === null || enText === null || zhText === enText || !/[\u4e00-\u9fff]/.test(zhText)) unsaid.push(code);
    }
    expect(unsaid).toEqual([]);
  });

  it("the words table names no code the core does not send, and generic codes show the message", () => {
    const known = new Set<string>(ERROR_CODES);
    expect(Object.keys(CORE_ERROR_WORDS).filter((c) => !known.has(c))).toEqual([]);
    expect(SAID_BY_MESSAGE.filter((c) => !known.has(c))).toEqual([]);
    for (const code of SAID_BY_MESSAGE) {
      expect(errorText({ code, message: "profile p9 not found", params: {} })).toBe("profile p9 not found");
    }
  });

  it("a sentence missing a value it names falls back to the core's message", () => {
    const e: CoreError = { code: "recite.reference_too_long", message: "too long to check", params: {} };
    expect(localizeCoreError(e, "zh-CN", zh)).toBeNull();
    expect(localizeCoreError({ ...e, params: { max: 5000 } }, "zh-CN", zh)).toBe(
      "这篇内容太长了，一次检查不了（最多 5000 个字或词）。请分成几段来背。",
    );
  });
});

describe("api rejections carry the translated sentence", () => {
  beforeEach(() => {
    invoke.mockReset();
  });

  it("follows the language the UI shows", async () => {
    invoke.mockRejectedValue({ code: "pin.wrong", message: "wrong PIN; 3 tries left", params: { tries_left: 3 } });
    const { unmount } = renderWithI18n(<></>, "zh-CN");
    await expect(api.parentUnlock("p1", "0000")).rejects.toBe("密码不对。还可以再试 3 次，之后家长区会锁住几分钟。");
    unmount();
    renderWithI18n(<></>, "en");
    await expect(api.parentUnlock("p1", "0000")).rejects.toBe(
      "Wrong PIN. 3 more tries before the parent area locks for a few minutes.",
    );
  });

  it("keeps plain strings and unknown codes as the core wrote them", async () => {
    renderWithI18n(<></>, "zh-CN");
    invoke.mockRejectedValue("the practice is not listening");
    await expect(api.parentUnlock("p1", "0000")).rejects.toBe("the practice is not listening");
    invoke.mockRejectedValue({ code: "not_found", message: "profile p9 not found", params: {} });
    await expect(api.parentUnlock("p9", "0000")).rejects.toBe("profile p9 not found");
  });
});
