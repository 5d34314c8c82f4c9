import { mockIPC } from "@tauri-apps/api/mocks";
import { emit } from "@tauri-apps/api/event";
import { createRoot } from "react-dom/client";
import "../src/styles.css";
import { I18nProvider } from "../src/i18n";
import { ChildHome } from "../src/screens/ChildHome";
import { ParentHome } from "../src/screens/ParentHome";
import { Practice } from "../src/screens/practice/Practice";
import { ChatScreen } from "../src/screens/chat/ChatScreen";
import { ReportsTab } from "../src/screens/parent/ReportsTab";
import { SettingsTab } from "../src/screens/parent/SettingsTab";
import { LampPanel } from "../src/components/lamp/LampPanel";
import { profile, material } from "../src/test/helpers";
import { jingyesi, practiceResult, practiceView, recErr, weeklyReport, lampState } from "../src/test/samples";

const hash = location.hash.slice(1) || "child";
const [screen, locale] = hash.split(":");
const ming = profile({ id: "c1", kind: "child", name: "小明", grade: 2 });
const mum = profile({ id: "p1", kind: "parent", name: "妈妈" });
const twinkle = material({ id: "m2", lang: "en", title: "Twinkle, Twinkle, Little Star", author: "Jane Taylor", body: "Twinkle, twinkle, little star,\nHow I wonder what you are!" });
const chunxiao = material({ id: "m3", title: "春晓", author: "孟浩然", dynasty: "唐", grade: 1, body: "春眠不觉晓，\n处处闻啼鸟。\n夜来风雨声，\n花落知多少。" });

const result = practiceResult({
  errors: [
    recErr({ type: "substitution", kind: "tone", line: 3, offset: 1, expected: "头", actual: "偷", label_zh: "字音错（声调）", label_en: "wrong tone" }),
    recErr({ type: "omission", kind: "line", line: 4, offset: 0, expected: "低头思故乡", label_zh: "漏了一句", label_en: "missed a line" }),
    recErr({ type: "substitution", kind: "sound", line: 1, offset: 3, expected: "月", actual: "越", uncertain: true, label_zh: "字音错", label_en: "wrong sound" }),
    recErr({ type: "insertion", kind: "extra", line: 2, offset: 5, expected: "", actual: "呀", label_zh: "多字", label_en: "extra words" }),
    recErr({ type: "order", kind: "swap", line: 2, offset: 2, expected: "地上", actual: "上地", label_zh: "记混顺序", label_en: "mixed-up order" }),
  ],
});

mockIPC(
  (cmd) => {
    switch (cmd) {
      case "materials_list": return [jingyesi, chunxiao, twinkle];
      case "reviews_due": return [
        { material_id: "m3", title: "春晓", lang: "zh", due_at: "2026-03-03T00:00:00Z", overdue_days: 2 },
        { material_id: "m2", title: "Twinkle, Twinkle, Little Star", lang: "en", due_at: "2026-03-05T00:00:00Z", overdue_days: 0 },
      ];
      case "practice_current": return null;
      case "practice_start": return practiceView();
      case "lamp_status": return screen === "nolamp" ? null : lampState({ projector: { on: true, card: { title: "静夜思", lines: ["床前明月光", "疑是地上霜"] } } });
      case "profiles_list": return [mum, ming];
      case "report": return weeklyReport;
      case "llm_settings_get": return { model: screen === "chatnone" ? null : "openai:gpt-4o-mini", base_url: null, has_key: true };
      case "chat_threads": return [
        { id: "t1", title: "静夜思是什么意思", profile_id: "c1", created_at: "2026-03-01T00:00:00Z", updated_at: "2026-03-02T00:00:00Z" },
        { id: "t2", title: "帮我出一份口算题", profile_id: "c1", created_at: "2026-03-01T00:00:00Z", updated_at: "2026-03-01T00:00:00Z" },
      ];
      case "chat_thread": return {
        thread: { id: "t1", title: "静夜思是什么意思", profile_id: "c1", created_at: "", updated_at: "" },
        messages: [
          { id: "1", role: "user", content: "静夜思是什么意思？", tool_calls: null, tool_call_id: null, created_at: "" },
          { id: "2", role: "assistant", content: "我先查一下课文。", tool_calls: [{ id: "c1", name: "read_file", arguments: "{\"path\":\"poems/jingyesi.md\"}" }, { id: "c2", name: "web_search", arguments: "{\"q\":\"静夜思 赏析\"}" }], tool_call_id: null, created_at: "" },
          { id: "3", role: "tool", content: "床前明月光，疑是地上霜。举头望明月，低头思故乡。", tool_calls: null, tool_call_id: "c1", created_at: "" },
          { id: "4", role: "tool", content: "Error: web search is turned off", tool_calls: null, tool_call_id: "c2", created_at: "" },
          { id: "5", role: "assistant", content: "这首诗写的是李白在夜里看到明亮的月光，想起了远方的家乡。\n“举头望明月，低头思故乡”就是抬头看月亮，低头想家。", tool_calls: null, tool_call_id: null, created_at: "" },
        ],
        todos: [{ content: "读课文", status: "completed" }, { content: "解释诗意", status: "in_progress" }, { content: "出两道小题", status: "pending" }],
      };
      case "models_status": return [
        { name: "whisper-base", purpose: "speech recognition: whisper multilingual base for whisper.cpp", present: false, detail: "ggml-base.bin is missing" },
        { name: "silero-vad", purpose: "voice activity detection", present: true, detail: "" },
      ];
      case "doctor": return [];
      default: return null;
    }
  },
  { shouldMockEvents: true },
);

function View() {
  switch (screen) {
    case "child":
    case "nolamp":
      return <ChildHome profile={ming} onExit={() => {}} />;
    case "practice":
      return <div className="screen"><Practice profile={ming} materialId="m1" material={jingyesi} onBack={() => {}} /></div>;
    case "listening":
      return <div className="screen"><Practice profile={ming} materialId="m1" material={jingyesi} resume={practiceView({ state: { state: "listening" } })} onBack={() => {}} /></div>;
    case "result":
      return <div className="screen"><Practice profile={ming} materialId="m1" material={jingyesi} resume={practiceView({ attempts: 1, state: { state: "feedback", attempt_id: "a1", accuracy: 70, passed: false }, last_result: result })} onBack={() => {}} /></div>;
    case "chat":
    case "chatnone":
      return <div className="screen"><ChatScreen profile={screen === "chatnone" ? ming : mum} onBack={() => {}} onOpenSettings={() => {}} /></div>;
    case "parent":
      return <ParentHome profile={mum} status={null} onLock={() => {}} />;
    case "reports":
      return <div className="screen"><main className="content"><ReportsTab /></main></div>;
    case "settings":
      return <div className="screen"><main className="content"><SettingsTab status={null} /></main></div>;
    case "lamp":
      return <div style={{ width: 360, padding: 16 }}><LampPanel state={lampState({ arm: { moving: { gesture: "wave", speed: 50 } }, projector: { on: true, card: { title: "静夜思", lines: ["床前明月光", "疑是地上霜"] } } })} /></div>;
  }
  return null;
}

createRoot(document.getElementById("root")!).render(
  <I18nProvider initialLocale={locale === "en" ? "en" : "zh-CN"}><View /></I18nProvider>,
);

if (screen === "listening") {
  setTimeout(() => {
    void emit("practice://level", { practice_id: "p1", level: 0.6 });
    void emit("practice://partial", { practice_id: "p1", text: "床前明月光，疑是地上" });
  }, 300);
}
if (screen === "chat") {
  setTimeout(() => document.querySelector<HTMLButtonElement>('[data-testid="thread-item"]')?.click(), 300);
}
if (screen === "child") {
  setTimeout(() => document.querySelector<HTMLButtonElement>('[data-testid="lamp-dock-toggle"]')?.click(), 400);
}

setTimeout(() => {
  const small = [...document.querySelectorAll<HTMLElement>('button, input, select, textarea, [data-testid="material-card"]')]
    .filter((e) => e.offsetParent !== null)
    .map((e) => [e.getAttribute("data-testid") || e.textContent?.trim().slice(0, 20), Math.round(e.getBoundingClientRect().height)] as const)
    .filter(([, h]) => h < 44);
  const overflow = document.documentElement.scrollWidth - document.documentElement.clientWidth;
  const pre = document.createElement("pre");
  pre.id = "audit";
  pre.textContent = JSON.stringify({ small, overflow });
  document.body.appendChild(pre);
}, 2000);
