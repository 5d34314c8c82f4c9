/**
 * Tiny i18n: two string tables (zh-CN, en), a React context and `useT()`.
 *
 * Every string a user can see lives in these tables. zh-CN is the default;
 * the English table must have exactly the same keys (checked by the type
 * system and by i18n.test.tsx).
 */
import { createContext, createElement, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from "react";
import * as api from "./api";
import type { Locale } from "./api";
import { errorText } from "./errors";

const zhCN = {
  "app.name": "同桌 Deskmate",
  "app.logo": "同",
  "app.loading": "正在准备…",
  "app.startError": "同桌没能启动：{error}",
  "app.retry": "再试一次",

  "locale.label": "语言",
  "locale.zh": "中文",
  "locale.en": "EN",
  "locale.saveError": "语言设置没能保存：{error}",

  "common.back": "返回",
  "common.cancel": "取消",
  "common.saving": "正在保存…",
  "common.loading": "正在加载…",

  "grade.1": "一年级",
  "grade.2": "二年级",
  "grade.3": "三年级",
  "grade.4": "四年级",
  "grade.5": "五年级",
  "grade.6": "六年级",
  "grade.all": "全部",
  "grade.any": "不限",

  "lang.zh": "中文",
  "lang.en": "英文",

  "kind.parent": "家长",
  "kind.child": "孩子",

  "err.nameRequired": "请填写名字。",
  "err.pinFormat": "密码要用 4 到 8 位数字。",
  "err.pinMismatch": "两次输入的密码不一样。",
  "err.gradeRequired": "请选择年级。",
  "err.titleRequired": "请填写题目。",
  "err.bodyRequired": "请填写正文。",
  "err.fixAbove": "请先改正上面标红的地方。",

  "setup.title": "欢迎使用同桌！",
  "setup.intro": "先用一分钟设置一下：一位家长，一位小朋友。以后还可以再添加。",
  "setup.parentSection": "家长",
  "setup.parentName": "家长的称呼",
  "setup.parentNamePlaceholder": "例如：妈妈",
  "setup.pin": "家长密码（4–8 位数字）",
  "setup.pin2": "再输入一次密码",
  "setup.pinHint": "家长区要用这个密码才能打开。",
  "setup.childSection": "小朋友",
  "setup.childName": "孩子的名字",
  "setup.childNamePlaceholder": "例如：小明",
  "setup.childGrade": "年级",
  "setup.submit": "开始使用",
  "setup.failed": "没能保存：{error}",

  "welcome.title": "今天谁来学习？",
  "welcome.subtitle": "点一下自己的名字吧。",
  "welcome.empty": "还没有成员。",
  "welcome.loadError": "没能读取成员：{error}",
  "welcome.parentHint": "需要密码",

  "pin.title": "{name}，请输入家长密码",
  "pin.label": "家长密码",
  "pin.submit": "进入家长区",
  "pin.checking": "正在核对…",
  "pin.empty": "请输入密码。",

  "child.hello": "{name}，你好！今天读点什么？",
  "library.title": "我的书架",
  "filter.lang": "语言",
  "filter.langAll": "全部",
  "filter.langZh": "中文",
  "filter.langEn": "English",
  "filter.grade": "年级",
  "library.search": "找一找",
  "library.searchPlaceholder": "题目、作者或一句话",
  "library.loading": "正在找…",
  "library.empty": "这里还没有内容，换个条件试试吧。",
  "library.error": "书架没能打开：{error}",
  "library.count": "共 {count} 篇",
  "material.byline": "{author}（{dynasty}）",
  "material.backToLibrary": "回到书架",
  "material.custom": "家长添加",

  "parent.title": "家长区",
  "parent.hello": "{name}，您好",
  "parent.lock": "锁定并退出",
  "tab.profiles": "家庭成员",
  "tab.materials": "添加内容",
  "tab.settings": "设置",

  "profiles.listTitle": "家庭成员",
  "profiles.loadError": "没能读取成员：{error}",
  "profiles.hasPin": "已设密码",
  "profiles.addTitle": "添加成员",
  "profiles.kind": "身份",
  "profiles.name": "名字",
  "profiles.grade": "年级",
  "profiles.pin": "家长密码（4–8 位数字）",
  "profiles.pin2": "再输入一次密码",
  "profiles.submit": "添加",
  "profiles.added": "已添加：{name}",
  "profiles.failed": "没能添加：{error}",

  "addMaterial.title": "添加学习内容",
  "addMaterial.intro": "添加的内容会出现在孩子的书架里。",
  "addMaterial.fieldTitle": "题目",
  "addMaterial.lang": "语言",
  "addMaterial.author": "作者（可不填）",
  "addMaterial.grade": "年级（可不填）",
  "addMaterial.body": "正文",
  "addMaterial.bodyHint": "每句一行，孩子读起来更方便。",
  "addMaterial.submit": "保存",
  "addMaterial.saved": "已保存《{title}》，孩子的书架里可以看到了。",
  "addMaterial.failed": "没能保存：{error}",

  "settings.language": "界面语言",
  "settings.languageHint": "全家共用这个设置。",
  "settings.dataDir": "数据保存在：{dir}",
  "settings.check": "系统检查",
  "settings.checkIntro": "看看同桌需要的东西是否都正常。",
  "settings.recheck": "重新检查",
  "settings.checking": "正在检查…",
  "settings.checkError": "检查没能完成：{error}",
  "settings.checkEmpty": "没有检查项。",
  "settings.fix": "怎么办：",
  "status.ok": "正常",
  "status.warn": "注意",
  "status.fail": "有问题",
} as const satisfies Record<string, string>;

export type MessageKey = keyof typeof zhCN;
export type Messages = Record<MessageKey, string>;

const en: Messages = {
  "app.name": "同桌 Deskmate",
  "app.logo": "同",
  "app.loading": "Getting ready…",
  "app.startError": "Deskmate couldn't start: {error}",
  "app.retry": "Try again",

  "locale.label": "Language",
  "locale.zh": "中文",
  "locale.en": "EN",
  "locale.saveError": "Couldn't save the language setting: {error}",

  "common.back": "Back",
  "common.cancel": "Cancel",
  "common.saving": "Saving…",
  "common.loading": "Loading…",

  "grade.1": "Grade 1",
  "grade.2": "Grade 2",
  "grade.3": "Grade 3",
  "grade.4": "Grade 4",
  "grade.5": "Grade 5",
  "grade.6": "Grade 6",
  "grade.all": "All",
  "grade.any": "Any",

  "lang.zh": "Chinese",
  "lang.en": "English",

  "kind.parent": "Parent",
  "kind.child": "Child",

  "err.nameRequired": "Please enter a name.",
  "err.pinFormat": "The PIN must be 4 to 8 digits.",
  "err.pinMismatch": "The two PINs don't match.",
  "err.gradeRequired": "Please choose a grade.",
  "err.titleRequired": "Please enter a title.",
  "err.bodyRequired": "Please enter the text.",
  "err.fixAbove": "Please fix the fields marked above.",

  "setup.title": "Welcome to Deskmate!",
  "setup.intro": "Let's set things up in a minute: one parent and one child. You can add more later.",
  "setup.parentSection": "Parent",
  "setup.parentName": "Parent's name",
  "setup.parentNamePlaceholder": "e.g. Mum",
  "setup.pin": "Parent PIN (4–8 digits)",
  "setup.pin2": "Enter the PIN again",
  "setup.pinHint": "The parent area opens only with this PIN.",
  "setup.childSection": "Child",
  "setup.childName": "Child's name",
  "setup.childNamePlaceholder": "e.g. Lily",
  "setup.childGrade": "Grade",
  "setup.submit": "Get started",
  "setup.failed": "Couldn't save: {error}",

  "welcome.title": "Who's studying today?",
  "welcome.subtitle": "Tap your name.",
  "welcome.empty": "No profiles yet.",
  "welcome.loadError": "Couldn't load the profiles: {error}",
  "welcome.parentHint": "PIN needed",

  "pin.title": "{name}, please enter your parent PIN",
  "pin.label": "Parent PIN",
  "pin.submit": "Open parent area",
  "pin.checking": "Checking…",
  "pin.empty": "Please enter the PIN.",

  "child.hello": "Hi {name}! What shall we read today?",
  "library.title": "My library",
  "filter.lang": "Language",
  "filter.langAll": "All",
  "filter.langZh": "中文",
  "filter.langEn": "English",
  "filter.grade": "Grade",
  "library.search": "Search",
  "library.searchPlaceholder": "Title, author or a line",
  "library.loading": "Looking…",
  "library.empty": "Nothing here yet. Try another choice!",
  "library.error": "Couldn't open the library: {error}",
  "library.count": "{count} in total",
  "material.byline": "{author} ({dynasty})",
  "material.backToLibrary": "Back to library",
  "material.custom": "Added by a parent",

  "parent.title": "Parent area",
  "parent.hello": "Hello, {name}",
  "parent.lock": "Lock & exit",
  "tab.profiles": "Profiles",
  "tab.materials": "Add material",
  "tab.settings": "Settings",

  "profiles.listTitle": "Family",
  "profiles.loadError": "Couldn't load the profiles: {error}",
  "profiles.hasPin": "PIN set",
  "profiles.addTitle": "Add a profile",
  "profiles.kind": "Role",
  "profiles.name": "Name",
  "profiles.grade": "Grade",
  "profiles.pin": "Parent PIN (4–8 digits)",
  "profiles.pin2": "Enter the PIN again",
  "profiles.submit": "Add",
  "profiles.added": "Added {name}.",
  "profiles.failed": "Couldn't add: {error}",

  "addMaterial.title": "Add study material",
  "addMaterial.intro": "What you add shows up in the child's library.",
  "addMaterial.fieldTitle": "Title",
  "addMaterial.lang": "Language",
  "addMaterial.author": "Author (optional)",
  "addMaterial.grade": "Grade (optional)",
  "addMaterial.body": "Text",
  "addMaterial.bodyHint": "One sentence per line makes it easier to read aloud.",
  "addMaterial.submit": "Save",
  "addMaterial.saved": "Saved “{title}”. It's now in the child's library.",
  "addMaterial.failed": "Couldn't save: {error}",

  "settings.language": "Interface language",
  "settings.languageHint": "The whole family shares this setting.",
  "settings.dataDir": "Data is kept in: {dir}",
  "settings.check": "System check",
  "settings.checkIntro": "Checks that everything Deskmate needs is working.",
  "settings.recheck": "Check again",
  "settings.checking": "Checking…",
  "settings.checkError": "The check couldn't finish: {error}",
  "settings.checkEmpty": "No checks to show.",
  "settings.fix": "How to fix: ",
  "status.ok": "OK",
  "status.warn": "Warning",
  "status.fail": "Problem",
};

export const tables: Record<Locale, Messages> = { "zh-CN": zhCN, en };
export const LOCALES: Locale[] = ["zh-CN", "en"];
export const DEFAULT_LOCALE: Locale = "zh-CN";

export type Vars = Record<string, string | number>;
export type TFunction = (key: MessageKey, vars?: Vars) => string;

/** Look a key up in one table and fill `{name}` placeholders. */
export function translate(locale: Locale, key: MessageKey, vars?: Vars): string {
  const table = tables[locale] ?? tables[DEFAULT_LOCALE];
  const text = table[key] ?? tables[DEFAULT_LOCALE][key] ?? key;
  if (!vars) return text;
  return text.replace(/\{(\w+)\}/g, (whole, name: string) =>
    Object.prototype.hasOwnProperty.call(vars, name) ? String(vars[name]) : whole,
  );
}

export function isLocale(value: unknown): value is Locale {
  return value === "zh-CN" || value === "en";
}

/** The `grade.N` key for a grade 1–6. */
export function gradeKey(grade: number): MessageKey {
  return `grade.${grade}` as MessageKey;
}

/** "二年级" / "Grade 2", or null for a missing or out-of-range grade. */
export function gradeLabel(t: TFunction, grade: number | null | undefined): string | null {
  if (typeof grade !== "number" || !Number.isInteger(grade) || grade < 1 || grade > 6) return null;
  return t(gradeKey(grade));
}

interface I18nValue {
  locale: Locale;
  t: TFunction;
  /** Switch the UI language and save the choice through `locale_set`. */
  setLocale: (locale: Locale) => Promise<void>;
  /** Switch the UI language without saving it (used at start-up). */
  adoptLocale: (locale: Locale) => void;
  /** Set when saving the last choice failed. */
  saveError: string | null;
}

const I18nContext = createContext<I18nValue | null>(null);

export function I18nProvider({ initialLocale = DEFAULT_LOCALE, children }: { initialLocale?: Locale; children?: ReactNode }) {
  const [locale, setLocaleState] = useState<Locale>(initialLocale);
  const [saveError, setSaveError] = useState<string | null>(null);

  useEffect(() => {
    document.documentElement.lang = locale;
  }, [locale]);

  const t = useCallback<TFunction>((key, vars) => translate(locale, key, vars), [locale]);

  const setLocale = useCallback(async (next: Locale) => {
    setLocaleState(next);
    setSaveError(null);
    try {
      await api.localeSet(next);
    } catch (e) {
      setSaveError(errorText(e));
    }
  }, []);

  const adoptLocale = useCallback((next: Locale) => setLocaleState(next), []);

  const value = useMemo<I18nValue>(
    () => ({ locale, t, setLocale, adoptLocale, saveError }),
    [locale, t, setLocale, adoptLocale, saveError],
  );
  return createElement(I18nContext.Provider, { value }, children);
}

function useI18n(): I18nValue {
  const value = useContext(I18nContext);
  if (!value) throw new Error("useT/useLocale must be used inside <I18nProvider>");
  return value;
}

export function useT(): TFunction {
  return useI18n().t;
}

export function useLocale() {
  const { locale, setLocale, adoptLocale, saveError } = useI18n();
  return { locale, setLocale, adoptLocale, saveError };
}
