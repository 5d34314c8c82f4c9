import { useEffect, useState, type FormEvent } from "react";
import { Icon, type IconName } from "../components/Icon";
import * as api from "../api";
import type { DueReview, Lang, Material, Plan, PracticeView, Profile, SayResponse } from "../api";
import { Header } from "../components/Header";
import { LampDock } from "../components/lamp/LampDock";
import { errorText } from "../errors";
import { gradeKey, gradeLabel, useLocale, useT, type MessageKey } from "../i18n";
import { byline, firstLine, materialLangAttr } from "../materialText";
import { useDebounced } from "../useDebounced";
import { GRADES } from "../validation";
import { ChatScreen } from "./chat/ChatScreen";
import { DueStrip, sortDue } from "./child/DueStrip";
import { HomeworkPanel, PhotoButton, refusePhotos, type HomeworkState } from "./child/Homework";
import { PlanCard } from "./child/PlanCard";
import { RoutineRun } from "./child/RoutineRun";
import { TalkButton } from "./child/TalkButton";
import { Practice } from "./practice/Practice";

export { byline, firstLine };

export const SEARCH_DEBOUNCE_MS = 200;

type LangFilter = "all" | Lang;

const LANG_FILTERS: { value: LangFilter; key: MessageKey }[] = [
  { value: "all", key: "filter.langAll" },
  { value: "zh", key: "filter.langZh" },
  { value: "en", key: "filter.langEn" },
];

interface ChildHomeProps {
  profile: Profile;
  onExit: () => void;
}

/**
 * The library with the materials due for review first (most overdue first);
 * the others keep the order the core gave.
 */
export function dueFirst(materials: Material[], due: DueReview[]): Material[] {
  const order = new Map(sortDue(due).map((d, i) => [d.material_id, i]));
  const first = materials.filter((m) => order.has(m.id)).sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return [...first, ...materials.filter((m) => !order.has(m.id))];
}

/** The scenario cards: each says its words through the one entry, except chat, which opens the chat. */
export const SCENARIOS: { id: "recite" | "plan" | "homework" | "chat"; icon: IconName; label: MessageKey; says: MessageKey | null }[] = [
  { id: "recite", icon: "book", label: "scenario.recite", says: "scenario.recite.says" },
  { id: "plan", icon: "calendar", label: "scenario.plan", says: "scenario.plan.says" },
  { id: "homework", icon: "pencil", label: "scenario.homework", says: "scenario.homework.says" },
  { id: "chat", icon: "chat", label: "scenario.chat", says: null },
];

type View =
  | { name: "library" }
  | {
      name: "practice";
      materialId: string;
      material: Material | null;
      resume: PracticeView | null;
      /** A routine's run waiting on this recitation: back from it, the run goes on. */
      then?: { routine: string; runId: string };
    }
  | { name: "chat"; handoff?: { traceId: string; text: string } }
  | { name: "routine"; routine: string; runId: string | null };

/**
 * The child's home: scenario cards (背古诗, 今天的计划, 问作业 through the one
 * entry; 和同桌聊天 opens the chat), the talk button (the microphone through
 * the same entry), the camera button (photos of homework → the homework
 * card) and the '和同桌说' line, today's plan with
 * progress, the reviews due today, then the library (filters, search, a card
 * per material). A card, a due review or a plan task opens recitation
 * practice; a routine on the plan runs in ./child/RoutineRun (its recite
 * steps open practice, and back from it the run goes on). A practice left
 * open (app restart) is resumed.
 */
export function ChildHome({ profile, onExit }: ChildHomeProps) {
  const t = useT();
  const { locale } = useLocale();
  const [lang, setLang] = useState<LangFilter>("all");
  const [grade, setGrade] = useState<number | null>(null);
  const [search, setSearch] = useState("");
  const debouncedSearch = useDebounced(search, SEARCH_DEBOUNCE_MS);
  const [materials, setMaterials] = useState<Material[] | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [reloadToken, setReloadToken] = useState(0);
  const [view, setView] = useState<View>({ name: "library" });
  const [due, setDue] = useState<DueReview[]>([]);
  const dueIds = new Set(due.map((d) => d.material_id));
  const shownMaterials = materials ? dueFirst(materials, due) : null;

  useEffect(() => {
    let stale = false;
    setLoading(true);
    setError(null);
    const q = debouncedSearch.trim();
    api
      .materialsList({ lang: lang === "all" ? null : lang, grade, search: q ? q : null })
      .then((list) => {
        if (!stale) setMaterials(list);
      })
      .catch((e) => {
        if (!stale) setError(errorText(e));
      })
      .finally(() => {
        if (!stale) setLoading(false);
      });
    return () => {
      stale = true;
    };
  }, [lang, grade, debouncedSearch, reloadToken]);

  // Continue a practice the app was in when it closed.
  useEffect(() => {
    let stale = false;
    (async () => {
      try {
        const current = await api.practiceCurrent(profile.id);
        if (!stale && current && current.state && current.state.state !== "idle") {
          setView((v) =>
            v.name === "library"
              ? { name: "practice", materialId: current.material?.id ?? "", material: current.material ?? null, resume: current }
              : v,
          );
        }
      } catch {
        // Nothing to resume.
      }
    })();
    return () => {
      stale = true;
    };
  }, [profile.id]);

  const toLibrary = () => setView({ name: "library" });

  // "和同桌说": what the child types goes through the one entry; a
  // recitation it opens is shown, the rest is said back.
  const [said, setSaid] = useState("");
  const [reply, setReply] = useState<SayResponse | null>(null);
  const [sayError, setSayError] = useState<string | null>(null);
  // The newest plan the entry answered with (the plan card shows it).
  const [plan, setPlan] = useState<Plan | null>(null);
  // Changes each time the child comes back to the home, so the plan is read again.
  const [homeVisits, setHomeVisits] = useState(0);
  useEffect(() => {
    if (view.name === "library") setHomeVisits((n) => n + 1);
  }, [view.name]);
  // What the entry answered, typed or spoken: a recitation it opens is shown, the rest said back.
  function answered(r: SayResponse, words?: string) {
    setReply(r);
    // The companion takes it from here: the chat opens and answers the child's words.
    const asked = (r.heard ?? words ?? "").trim();
    if (r.handoff && asked) {
      setView({ name: "chat", handoff: { traceId: r.trace_id, text: asked } });
      return;
    }
    // The homework card follows the homework scene; elsewhere it goes away.
    if (r.homework) setHomework({ name: "card", card: r.homework });
    else if (r.scene !== "homework") setHomework({ name: "idle" });
    if (r.plan) setPlan(r.plan);
    if (r.practice) {
      setView({ name: "practice", materialId: r.practice.material.id, material: r.practice.material, resume: r.practice });
    }
  }
  async function sayText(text: string): Promise<boolean> {
    setSayError(null);
    try {
      answered(await api.say(profile.id, text), text);
      return true;
    } catch (e) {
      setSayError(errorText(e));
      return false;
    }
  }
  // A screen button (好的 / 不用了 on a question, 下一题 on the homework
  // card) is the scene-local reply it stands for, through the one entry.
  async function pressButton(button: string) {
    setSayError(null);
    try {
      answered(await api.sayButton(profile.id, button));
    } catch (e) {
      setSayError(errorText(e));
    }
  }
  // Photos of homework (with any words typed along): checked by the model,
  // then the homework card; a photo that cannot be used, or no model set
  // up, is said on the card in plain words.
  const [homework, setHomework] = useState<HomeworkState>({ name: "idle" });
  async function sendPhotos(files: File[]) {
    setSayError(null);
    const refused = refusePhotos(files);
    if (refused) {
      setHomework({ name: "error", ...refused });
      return;
    }
    setHomework({ name: "checking" });
    try {
      const r = await api.sayPhotos(profile.id, await api.readPhotos(files), said.trim());
      setSaid("");
      if (r.error) {
        setReply(r);
        setHomework({ name: "error", code: r.error.code, message: errorText(r.error) });
      } else if (!r.homework && r.needs_model) {
        setReply(r);
        setHomework({ name: "error", code: "llm.no_model", message: t("homework.needsModel") });
      } else {
        answered(r);
      }
    } catch (e) {
      setHomework({ name: "error", code: null, message: errorText(e) });
    }
  }
  async function sayIt(ev: FormEvent) {
    ev.preventDefault();
    const text = said.trim();
    if (!text) return;
    if (await sayText(text)) setSaid("");
  }

  return (
    <div className="screen" data-testid="child-home">
      {view.name === "practice" ? (
        <Practice
          key={view.resume?.id ?? view.materialId}
          profile={profile}
          materialId={view.materialId}
          material={view.material}
          resume={view.resume}
          onBack={view.then ? () => view.then && setView({ name: "routine", ...view.then }) : toLibrary}
        />
      ) : view.name === "routine" ? (
        <RoutineRun
          key={view.runId ?? view.routine}
          profile={profile}
          name={view.routine}
          runId={view.runId}
          onBack={toLibrary}
          onRecite={(materialId, runId) =>
            setView({ name: "practice", materialId, material: null, resume: null, then: { routine: view.routine, runId } })
          }
        />
      ) : view.name === "chat" ? (
        <ChatScreen profile={profile} onBack={toLibrary} handoff={view.handoff} />
      ) : (
        <>
        <Header
          onBack={onExit}
          extra={
            <button type="button" className="btn btn-secondary" data-testid="open-chat" onClick={() => setView({ name: "chat" })}>
              <Icon name="chat" /> {t("chat.open")}
            </button>
          }
        />
        <main className="content">
          <h1 className="page-title">{t("child.hello", { name: profile.name })}</h1>
          <ul className="scenario-cards" aria-label={t("scenario.title")}>
            {SCENARIOS.map((c) => (
              <li key={c.id}>
                <button
                  type="button"
                  className="scenario-card"
                  data-testid={`scenario-${c.id}`}
                  onClick={() => {
                    if (c.says) void sayText(t(c.says));
                    else setView({ name: "chat" });
                  }}
                >
                  <Icon name={c.icon} size={28} />
                  <span>{t(c.label)}</span>
                </button>
              </li>
            ))}
          </ul>
          <form className="card say-box" onSubmit={(e) => void sayIt(e)}>
            <TalkButton
              profileId={profile.id}
              onAnswer={(r) => {
                setSayError(null);
                answered(r);
              }}
            />
            <PhotoButton disabled={homework.name === "checking"} onPhotos={(files) => void sendPhotos(files)} />
            <input
              className="input"
              data-testid="say-input"
              aria-label={t("say.label")}
              placeholder={t("say.placeholder")}
              value={said}
              onChange={(e) => setSaid(e.target.value)}
            />
            <button type="submit" className="btn btn-primary" data-testid="say-send" disabled={!said.trim()}>
              {t("say.send")}
            </button>
            {reply && (
              <p className="say-reply" data-testid="say-reply" data-scene={reply.scene}>
                {locale === "en" ? reply.text_en : reply.text_zh}
                {reply.scene !== "homework" && reply.suggestions.length > 0 && (
                  <span className="say-choices">
                    {reply.suggestions.map((sg, i) => (
                      <button
                        key={i}
                        type="button"
                        className={i === 0 ? "btn btn-primary" : "btn btn-secondary"}
                        data-testid={sg.button === "screen:yes" ? "say-yes" : sg.button === "screen:no" ? "say-no" : "say-suggestion"}
                        onClick={() => void (sg.button ? pressButton(sg.button) : sayText(sg.says ?? ""))}
                      >
                        {locale === "en" ? sg.label_en : sg.label_zh}
                      </button>
                    ))}
                  </span>
                )}
                {reply.needs_model && (
                  <button type="button" className="btn btn-secondary" data-testid="say-open-chat" onClick={() => setView({ name: "chat" })}>
                    {t("chat.open")}
                  </button>
                )}
              </p>
            )}
            {sayError && (
              <p className="field-error" role="alert">
                {sayError}
              </p>
            )}
          </form>
          <HomeworkPanel
            state={homework}
            busy={homework.name === "checking"}
            onSay={(words) => void sayText(words)}
            onButton={(button) => void pressButton(button)}
          />
          <PlanCard
            profileId={profile.id}
            plan={plan}
            reloadKey={homeVisits}
            onOpen={(task) =>
              task.routine
                ? setView({ name: "routine", routine: task.routine, runId: null })
                : task.material_id && setView({ name: "practice", materialId: task.material_id, material: null, resume: null })
            }
          />
          <DueStrip
            profileId={profile.id}
            onOpen={(d) => setView({ name: "practice", materialId: d.material_id, material: null, resume: null })}
            onLoaded={setDue}
          />
          <section className="filters card" aria-label={t("library.title")}>
            <div className="filter-group">
              <span className="field-label" id="filter-lang-label">
                {t("filter.lang")}
              </span>
              <div className="segmented" role="group" aria-labelledby="filter-lang-label">
                {LANG_FILTERS.map((f) => (
                  <button
                    key={f.value}
                    type="button"
                    className="segmented-item"
                    data-testid={`filter-lang-${f.value}`}
                    aria-pressed={lang === f.value}
                    onClick={() => setLang(f.value)}
                  >
                    {t(f.key)}
                  </button>
                ))}
              </div>
            </div>
            <div className="filter-group">
              <label className="field-label" htmlFor="filter-grade">
                {t("filter.grade")}
              </label>
              <select
                id="filter-grade"
                data-testid="filter-grade"
                className="input"
                value={grade === null ? "" : String(grade)}
                onChange={(e) => setGrade(e.target.value ? Number(e.target.value) : null)}
              >
                <option value="">{t("grade.all")}</option>
                {GRADES.map((g) => (
                  <option key={g} value={String(g)}>
                    {t(gradeKey(g))}
                  </option>
                ))}
              </select>
            </div>
            <div className="filter-group filter-search">
              <label className="field-label" htmlFor="library-search">
                {t("library.search")}
              </label>
              <input
                id="library-search"
                data-testid="library-search"
                className="input"
                type="search"
                autoComplete="off"
                placeholder={t("library.searchPlaceholder")}
                value={search}
                onChange={(e) => setSearch(e.target.value)}
              />
            </div>
          </section>

          <div aria-live="polite" className="library-status">
            {error ? (
              <div className="banner banner-error" role="alert">
                <span>{t("library.error", { error })}</span>
                <button type="button" className="btn btn-secondary" onClick={() => setReloadToken((n) => n + 1)}>
                  {t("app.retry")}
                </button>
              </div>
            ) : loading && materials === null ? (
              <p className="muted">{t("library.loading")}</p>
            ) : materials && materials.length === 0 ? (
              <p className="empty">{t("library.empty")}</p>
            ) : materials ? (
              <p className="muted">{t("library.count", { count: materials.length })}</p>
            ) : null}
          </div>

          {shownMaterials && shownMaterials.length > 0 && !error && (
            <ul className={loading ? "material-grid is-loading" : "material-grid"}>
              {shownMaterials.map((m) => (
                <li key={m.id}>
                  <button
                    type="button"
                    className={dueIds.has(m.id) ? "material-card is-due" : "material-card"}
                    data-testid="material-card"
                    data-title={m.title}
                    data-lang={m.lang}
                    data-due={dueIds.has(m.id) ? "true" : undefined}
                    onClick={() => setView({ name: "practice", materialId: m.id, material: m, resume: null })}
                  >
                    <span className="material-title" lang={materialLangAttr(m.lang)}>
                      {m.title}
                    </span>
                    {byline(m) && <span className="material-byline">{byline(m)}</span>}
                    <span className="material-first-line" lang={materialLangAttr(m.lang)}>
                      {firstLine(m.body)}
                    </span>
                    <span className="material-tags">
                      {dueIds.has(m.id) && (
                        <span className="tag tag-warn" data-testid="material-due">
                          {t("library.due")}
                        </span>
                      )}
                      {gradeLabel(t, m.grade) && <span className="tag">{gradeLabel(t, m.grade)}</span>}
                      {m.source === "custom" && <span className="tag tag-custom">{t("material.custom")}</span>}
                    </span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </main>
        </>
      )}
      <LampDock />
    </div>
  );
}
