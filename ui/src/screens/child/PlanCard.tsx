import { useEffect, useState } from "react";
import * as api from "../../api";
import type { Plan, PlanTask } from "../../api";
import { errorText } from "../../errors";
import { subscribe } from "../../events";
import { useLocale, useT } from "../../i18n";

/** How far through the plan the child is, 0–100 (an empty plan is 0). */
export function planPercent(plan: Plan): number {
  return plan.total > 0 ? Math.round((plan.done / plan.total) * 100) : 0;
}

/**
 * "今天的计划 / Today's plan": the child's tasks for today (due reviews,
 * practice to finish, the parent's goals) with a tick for each one done and
 * the progress so far. A task with a material opens its recitation; a
 * routine a parent assigned opens its run.
 * `plan`, when given, is the newest plan the entry answered with (so the
 * card does not ask again); `reloadKey` changes when the child comes back
 * from a practice.
 */
export function PlanCard({
  profileId,
  plan: given,
  reloadKey,
  onOpen,
}: {
  profileId: string;
  plan?: Plan | null;
  reloadKey?: unknown;
  onOpen: (task: PlanTask) => void;
}) {
  const t = useT();
  const { locale } = useLocale();
  const [plan, setPlan] = useState<Plan | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [token, setToken] = useState(0);

  useEffect(() => {
    let stale = false;
    (async () => {
      try {
        const p = await api.planToday(profileId);
        if (!stale) {
          setPlan(p ?? null);
          setError(null);
        }
      } catch (e) {
        if (!stale) setError(errorText(e));
      }
    })();
    return () => {
      stale = true;
    };
  }, [profileId, reloadKey, token]);

  useEffect(() => {
    if (given) setPlan(given);
  }, [given]);

  // A review coming due changes the plan.
  useEffect(
    () =>
      subscribe("reviews://due", (e) => {
        if (e.profile_id === profileId) setToken((n) => n + 1);
      }),
    [profileId],
  );

  if (error) {
    return (
      <p className="muted small" data-testid="plan-error">
        {t("plan.error", { error })}
      </p>
    );
  }
  if (!plan) return null;
  const percent = planPercent(plan);
  return (
    <section className="plan-card card" aria-labelledby="plan-title" data-testid="plan-card" data-done={plan.done} data-total={plan.total}>
      <h2 id="plan-title" className="section-title">
        {t("plan.title")}{" "}
        {plan.total > 0 && (
          <span className="tag" data-testid="plan-progress">
            {t("plan.progress", { done: plan.done, total: plan.total })}
          </span>
        )}
      </h2>
      {plan.total === 0 ? (
        <p className="muted" data-testid="plan-empty">
          {t("plan.empty")}
        </p>
      ) : (
        <>
          <div
            className="plan-bar"
            role="progressbar"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent}
            aria-label={t("plan.title")}
          >
            <span style={{ width: `${percent}%` }} />
          </div>
          <ul className="plan-list">
            {plan.tasks.map((task, i) => {
              const text = locale === "en" ? task.text_en : task.text_zh;
              const mark = (
                <span className="plan-mark" aria-label={task.done ? t("plan.done") : t("plan.todo")}>
                  {task.done ? "✓" : "○"}
                </span>
              );
              return (
                <li key={`${task.kind}-${task.material_id ?? i}`}>
                  {(task.material_id || task.routine) && !task.done ? (
                    <button
                      type="button"
                      className="plan-task"
                      data-testid="plan-task"
                      data-kind={task.kind}
                      data-done="false"
                      onClick={() => onOpen(task)}
                    >
                      {mark} {text}
                    </button>
                  ) : (
                    <span className={task.done ? "plan-task is-done" : "plan-task"} data-testid="plan-task" data-kind={task.kind} data-done={String(task.done)}>
                      {mark} {text}
                    </span>
                  )}
                </li>
              );
            })}
          </ul>
        </>
      )}
    </section>
  );
}
