import { useEffect, useState, type FormEvent } from "react";
import * as api from "../../api";
import type { Goal, GoalKind } from "../../api";
import { errorText } from "../../errors";
import { ChildPicker, useChildren } from "../../components/ChildPicker";
import { useT } from "../../i18n";
import { PlanCard } from "../child/PlanCard";

const KINDS: GoalKind[] = ["new_per_day", "reviews_per_week"];

/**
 * "学习目标 / Goals": pick a child; their goals, each removable; add one in
 * words (每天背一首新诗, 每周复习三次) or by kind and number; and the plan
 * those goals make for today, under them (the child's own plan card).
 */
export function GoalsTab() {
  const t = useT();
  const [goals, setGoals] = useState<Goal[] | null>(null);
  const [words, setWords] = useState("");
  const [kind, setKind] = useState<GoalKind>("new_per_day");
  const [target, setTarget] = useState("1");
  const [error, setError] = useState<string | null>(null);
  const { children, childId, setChildId, name } = useChildren(setError);
  const [changed, setChanged] = useState(0);

  useEffect(() => {
    if (!childId) return;
    let stale = false;
    (async () => {
      try {
        const list = await api.goalsList(childId);
        if (!stale) setGoals(list ?? []);
      } catch (e) {
        if (!stale) setError(t("goals.error", { error: errorText(e) }));
      }
    })();
    return () => {
      stale = true;
    };
  }, [childId, changed, t]);

  async function change(work: () => Promise<unknown>) {
    setError(null);
    try {
      await work();
      setChanged((n) => n + 1);
      return true;
    } catch (e) {
      setError(errorText(e));
      return false;
    }
  }

  async function addWords(e: FormEvent) {
    e.preventDefault();
    if (!words.trim()) return;
    if (await change(() => api.goalSetWords(childId, words))) setWords("");
  }

  async function addKind(e: FormEvent) {
    e.preventDefault();
    await change(() => api.goalSet(childId, kind, Number(target)));
  }

  return (
    <div className="stack" data-testid="goals-screen">
      <ChildPicker
        id="goals-child"
        label={t("goals.child")}
        children={children}
        childId={childId}
        onChange={(id) => {
          setGoals(null);
          setChildId(id);
        }}
      />
      {children && children.length === 0 && <p className="empty">{t("goals.noChildren")}</p>}
      {error && (
        <p className="banner banner-error" role="alert" data-testid="goals-error">
          {error}
        </p>
      )}
      {goals && goals.length === 0 && (
        <p className="empty" data-testid="goals-empty">
          {t("goals.empty", { name })}
        </p>
      )}
      {goals && goals.length > 0 && (
        <ul className="stack" data-testid="goals-list">
          {goals.map((g) => (
            <li key={g.kind} className="card" data-testid="goal-item" data-kind={g.kind}>
              <span>{t(`goals.line.${g.kind}`, { n: g.target })}</span>{" "}
              <button
                type="button"
                className="btn btn-secondary"
                data-testid={`goal-remove-${g.kind}`}
                onClick={() => change(() => api.goalRemove(childId, g.kind))}
              >
                {t("goals.remove")}
              </button>
            </li>
          ))}
        </ul>
      )}
      {childId && (
        <>
          <form className="card" onSubmit={addWords}>
            <label className="field-label" htmlFor="goal-words">
              {t("goals.words")}
            </label>
            <input
              id="goal-words"
              data-testid="goal-words"
              className="input"
              value={words}
              placeholder={t("goals.wordsPlaceholder")}
              onChange={(e) => setWords(e.target.value)}
            />
            <button type="submit" className="btn" data-testid="goal-add-words" disabled={!words.trim()}>
              {t("goals.add")}
            </button>
          </form>
          <form className="card" onSubmit={addKind}>
            <label className="field-label" htmlFor="goal-kind">
              {t("goals.kind")}
            </label>
            <select
              id="goal-kind"
              data-testid="goal-kind"
              className="input"
              value={kind}
              onChange={(e) => setKind(e.target.value as GoalKind)}
            >
              {KINDS.map((k) => (
                <option key={k} value={k}>
                  {t(`goals.kind.${k}`)}
                </option>
              ))}
            </select>
            <label className="field-label" htmlFor="goal-target">
              {t("goals.target")}
            </label>
            <input
              id="goal-target"
              data-testid="goal-target"
              className="input"
              type="number"
              min={1}
              value={target}
              onChange={(e) => setTarget(e.target.value)}
            />
            <button type="submit" className="btn" data-testid="goal-add-kind">
              {t("goals.set")}
            </button>
          </form>
          <section aria-label={t("goals.today", { name })}>
            <h2 className="section-title">{t("goals.today", { name })}</h2>
            <PlanCard profileId={childId} reloadKey={changed} onOpen={() => {}} />
          </section>
        </>
      )}
    </div>
  );
}
