import { useEffect, useState, type KeyboardEvent } from "react";
import { Icon } from "../components/Icon";
import type { AppStatus, Profile } from "../api";
import { Header } from "../components/Header";
import * as family from "../familyApi";
import { useT, type MessageKey } from "../i18n";
import { ChatScreen } from "./chat/ChatScreen";
import { ActivityTab } from "./parent/ActivityTab";
import { AddMaterialTab } from "./parent/AddMaterialTab";
import { AskTab } from "./parent/AskTab";
import { GoalsTab } from "./parent/GoalsTab";
import { KnowledgeTab } from "./parent/KnowledgeTab";
import { McpTab } from "./parent/McpTab";
import { MemoriesTab } from "./parent/MemoriesTab";
import { ProfilesTab } from "./parent/ProfilesTab";
import { ReportsTab } from "./parent/ReportsTab";
import { RoutinesTab } from "./parent/RoutinesTab";
import { SettingsTab } from "./parent/SettingsTab";
import { UsageTab } from "./parent/UsageTab";

type Tab = "profiles" | "reports" | "ask" | "usage" | "activity" | "goals" | "materials" | "knowledge" | "memories" | "mcp" | "routines" | "settings";
const TABS: { id: Tab; key: MessageKey }[] = [
  { id: "profiles", key: "tab.profiles" },
  { id: "reports", key: "tab.reports" },
  { id: "ask", key: "tab.ask" },
  { id: "usage", key: "tab.usage" },
  { id: "activity", key: "tab.activity" },
  { id: "goals", key: "tab.goals" },
  { id: "materials", key: "tab.materials" },
  { id: "knowledge", key: "tab.knowledge" },
  { id: "memories", key: "tab.memories" },
  { id: "mcp", key: "tab.mcp" },
  { id: "routines", key: "tab.routines" },
  { id: "settings", key: "tab.settings" },
];

interface ParentHomeProps {
  profile: Profile;
  status: AppStatus | null;
  onLock: () => void;
}

/** The parent area (reached only through the PIN): profiles (a child's data exported or deleted), reports, questions about progress with a chart, usage and limits with the notices, what happened in each request, goals, adding material, knowledge bases, each child's memories, MCP tools, routines, settings; and the chat. */
export function ParentHome({ profile, status, onLock }: ParentHomeProps) {
  const t = useT();
  const [tab, setTab] = useState<Tab>("profiles");
  const [chat, setChat] = useState(false);
  // Notices not read yet (a limit reached, quiet hours, a replaced reply):
  // counted on the Usage & limits tab, read again whenever the tab changes.
  const [unread, setUnread] = useState(0);
  useEffect(() => {
    let stale = false;
    Promise.resolve(family.noticesList(null, true))
      .then((n) => !stale && setUnread(n?.length ?? 0))
      .catch(() => undefined);
    return () => {
      stale = true;
    };
  }, [tab]);

  function onTabKey(e: KeyboardEvent<HTMLButtonElement>) {
    if (e.key !== "ArrowRight" && e.key !== "ArrowLeft") return;
    const i = TABS.findIndex((x) => x.id === tab);
    const next = TABS[(i + (e.key === "ArrowRight" ? 1 : TABS.length - 1)) % TABS.length];
    setTab(next.id);
    document.getElementById(`tab-${next.id}`)?.focus();
  }

  if (chat) {
    return (
      <div className="screen" data-testid="parent-home">
        <ChatScreen
          profile={profile}
          onBack={() => setChat(false)}
          onOpenSettings={() => {
            setChat(false);
            setTab("settings");
          }}
        />
      </div>
    );
  }

  return (
    <div className="screen" data-testid="parent-home">
      <Header
        extra={
          <>
            <button type="button" className="btn btn-secondary" data-testid="open-chat" onClick={() => setChat(true)}>
              <Icon name="chat" /> {t("chat.open")}
            </button>
            <button type="button" className="btn btn-secondary" data-testid="lock-button" onClick={onLock}>
              {t("parent.lock")}
            </button>
          </>
        }
      />
      <main className="content">
        <div className="page-head">
          <h1 className="page-title">{t("parent.title")}</h1>
          <p className="muted">{t("parent.hello", { name: profile.name })}</p>
        </div>
        <div className="tabs" role="tablist" aria-label={t("parent.title")}>
          {TABS.map((x) => (
            <button
              key={x.id}
              id={`tab-${x.id}`}
              type="button"
              role="tab"
              className="tab"
              data-testid={`tab-${x.id}`}
              aria-selected={tab === x.id}
              aria-controls={`panel-${x.id}`}
              tabIndex={tab === x.id ? 0 : -1}
              onClick={() => setTab(x.id)}
              onKeyDown={onTabKey}
            >
              {t(x.key)}
              {x.id === "usage" && unread > 0 && (
                <span className="tag tag-warn tab-count" data-testid="notices-unread" aria-label={t("notices.unreadCount", { n: unread })}>
                  {unread}
                </span>
              )}
            </button>
          ))}
        </div>
        <section id={`panel-${tab}`} role="tabpanel" aria-labelledby={`tab-${tab}`} className="tab-panel">
          {tab === "profiles" && <ProfilesTab parent={profile} />}
          {tab === "reports" && <ReportsTab />}
          {tab === "ask" && <AskTab />}
          {tab === "usage" && <UsageTab />}
          {tab === "activity" && <ActivityTab />}
          {tab === "goals" && <GoalsTab />}
          {tab === "materials" && <AddMaterialTab parent={profile} />}
          {tab === "knowledge" && <KnowledgeTab />}
          {tab === "memories" && <MemoriesTab />}
          {tab === "mcp" && <McpTab />}
          {tab === "routines" && <RoutinesTab />}
          {tab === "settings" && <SettingsTab status={status} />}
        </section>
      </main>
    </div>
  );
}
