/** Sample data shaped like the Rust core's answers, for unit tests. */
import type { DueReview, LampState, ModelNoticeView, PracticeResult, PracticeView, RecitationError, Report, SayResponse } from "../api";
import { material } from "./helpers";

export const jingyesi = material({
  id: "m1",
  title: "静夜思",
  author: "李白",
  dynasty: "唐",
  grade: 1,
  body: "床前明月光，\n疑是地上霜。\n举头望明月，\n低头思故乡。",
});

export const JINGYESI_LINES = ["床前明月光", "疑是地上霜", "举头望明月", "低头思故乡"];

/** `type` may be "uncertain", which the core never sends, to test that the UI still reads it. */
export function recErr(
  over: Partial<Omit<RecitationError, "type">> & Pick<RecitationError, "line" | "offset"> & { type: RecitationError["type"] | "uncertain" },
): RecitationError {
  return { kind: "part", expected: "", actual: "", label_zh: "", label_en: "", uncertain: false, ...over } as RecitationError;
}

/** The schedule's figures of a due review, for fixtures that care only about which and when. */
export const REVIEW_CARD: Pick<DueReview, "interval_days" | "reps" | "lapses" | "stability"> = {
  interval_days: 3,
  reps: 2,
  lapses: 0,
  stability: 3.5,
};

export function practiceView(over: Partial<PracticeView> = {}): PracticeView {
  return {
    id: "p1",
    profile_id: "c1",
    material: jingyesi,
    mode: "voice",
    is_review: false,
    attempts: 0,
    state: { state: "ready" },
    last_result: null,
    ...over,
  };
}

export function practiceResult(over: Partial<PracticeResult> = {}): PracticeResult {
  return {
    attempt_id: "a1",
    attempt_number: 1,
    accuracy: 70,
    passed: false,
    units: 20,
    correct: 14,
    transcript: "床前明越光，疑是地上霜，举偷望明月",
    errors: [
      recErr({ type: "substitution", kind: "tone", line: 3, offset: 1, expected: "头", actual: "偷", label_zh: "字音错（声调）", label_en: "wrong tone" }),
      recErr({ type: "omission", kind: "line", line: 4, offset: 0, expected: "低头思故乡", label_zh: "漏了一句", label_en: "missed a line" }),
    ],
    lines: JINGYESI_LINES,
    feedback: {
      zh: "正确率 70%，还差一点点就过关了，我们再练一练！",
      en: "70% right — almost there! Let's practise a little more.",
      tip_zh: "“举头”是抬起头，头要读第二声。",
      tip_en: "“举头” means raising your head.",
    },
    next_review_at: null,
    review_interval_days: null,
    lines_to_say_again: [],
    ...over,
  };
}

export const weeklyReport: Report = {
  profile_id: "c1",
  report_type: "weekly",
  report_date: "2026-03-02",
  time_zone: "Asia/Shanghai",
  period_start: "2026-03-01T16:00:00Z",
  period_end: "2026-03-08T16:00:00Z",
  summary: {
    attempts: 12,
    minutes: 34.5,
    average_accuracy: 88.25,
    passes: 7,
    first_passes: 3,
    materials_practised: 4,
    materials_mastered: 1,
    reviews: 5,
  },
  previous: {
    attempts: 8,
    minutes: 20,
    average_accuracy: 80,
    passes: 4,
    first_passes: 2,
    materials_practised: 3,
    materials_mastered: 0,
    reviews: 2,
  },
  trend: { attempts: 4, minutes: 14.5, average_accuracy: 8.25, direction: "up" },
  top_patterns: [
    { material_id: "m1", title: "静夜思", error_type: "substitution", line: 3, expected: "头", actual: "偷", occurrences: 3 },
    { material_id: "m2", title: "春晓", error_type: "omission", line: 2, expected: "处处闻啼鸟", actual: "", occurrences: 2 },
  ],
  weakest_materials: [{ material_id: "m2", title: "春晓", attempts: 4, average_accuracy: 72.5, passed: false }],
  days: [
    { date: "2026-03-02", attempts: 3, minutes: 8, average_accuracy: 80 },
    { date: "2026-03-03", attempts: 0, minutes: 0, average_accuracy: null },
    { date: "2026-03-04", attempts: 2, minutes: 6, average_accuracy: 85 },
    { date: "2026-03-05", attempts: 4, minutes: 10.5, average_accuracy: 92 },
    { date: "2026-03-06", attempts: 1, minutes: 3, average_accuracy: 90 },
    { date: "2026-03-07", attempts: 2, minutes: 7, average_accuracy: 95 },
    { date: "2026-03-08", attempts: 0, minutes: 0, average_accuracy: null },
  ],
  generated_at: "2026-03-08T12:00:00Z",
};

export const dailyReport: Report = {
  ...weeklyReport,
  report_type: "daily",
  report_date: "2026-03-05",
  summary: { ...weeklyReport.summary, attempts: 4, minutes: 10.5, average_accuracy: 92 },
  previous: { ...weeklyReport.previous, attempts: 0, minutes: 0, average_accuracy: null },
  trend: { attempts: 4, minutes: 10.5, average_accuracy: null, direction: "new" },
  days: undefined,
};

export function lampState(over: Partial<LampState> = {}): LampState {
  return {
    connection: "connected",
    port: "/dev/ttyACM0",
    device: { protocol: 1, model: "Deskmate Lamp S1", firmware: "1.2.0", serial: "SIM-1", capabilities: ["light", "face"] },
    light: { brightness: 80, temperature_k: 4000, transition_ms: 0 },
    expression: "happy",
    arm: "rest",
    projector: { on: false, card: null },
    ...over,
  };
}

/** The one entry's answer: a typed request that stayed in chat, with nothing else to show; tests give what matters to them. */
export function sayResponse(over: Partial<SayResponse> = {}): SayResponse {
  return {
    trace_id: "t1",
    scene: "chat",
    intent: "chat",
    confidence: "high",
    routed_by: "rules",
    decision: { decision: "continue" },
    reason: "already in that scene",
    text_zh: "",
    text_en: "",
    material: null,
    practice: null,
    heard: null,
    error: null,
    due: [],
    plan: null,
    needs_model: false,
    handoff: false,
    session_id: "s1",
    phase: "idle",
    need_tts: false,
    lamp: [],
    suggestions: [],
    timings: { speech_us: 0, route_us: 1, decide_us: 1, act_us: 1, total_us: 3 },
    ...over,
  };
}

/** The model notice with no model set up. */
export const NOTICE_NONE: ModelNoticeView = {
  version: 1,
  endpoint: null,
  moderation: null,
  text_zh: "同意后，AI 同伴会使用 （还没有设置模型） 上的模型。",
  text_en: "When you agree, the companion uses the model at (no model set up yet).",
  agreed_at: null,
};

/** The model notice a parent agreed to, for the provider's default address. */
export const NOTICE_AGREED: ModelNoticeView = {
  ...NOTICE_NONE,
  endpoint: "https://api.openai.com/v1",
  text_zh: "同意后，AI 同伴会使用 https://api.openai.com/v1 上的模型。",
  text_en: "When you agree, the companion uses the model at https://api.openai.com/v1.",
  agreed_at: "2026-11-27T08:00:00Z",
};
