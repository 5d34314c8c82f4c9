/**
 * A routine a parent assigned, run for the child (issue 21 point 4): opened
 * from the plan, it runs node by node and shows each step as it happens
 * (what the AI helpers and study tools said, the note for the parent). A
 * `recite` node makes the run wait: the child goes to the practice screen
 * for that text, as from any plan task, and coming back resumes the run
 * (`runId`), which goes on once the attempt is there.
 */
import { useEffect, useRef, useState } from "react";
import * as api from "../../api";
import type { Profile, Routine, RoutineEvent, RoutineRunView } from "../../api";
import { Header } from "../../components/Header";
import { errorText } from "../../errors";
import { useT } from "../../i18n";
import * as routinesApi from "../../routinesApi";
import { typeKey } from "../parent/routines/words";

interface Step {
  node: string;
  kind: string;
  state: "running" | "done" | "failed" | "waiting";
  output: string;
}

/** The steps so far after `event`. */
export function stepsAfter(steps: Step[], event: RoutineEvent): Step[] {
  const set = (node: string, change: Partial<Step>) => steps.map((s) => (s.node === node ? { ...s, ...change } : s));
  switch (event.type) {
    case "node_started":
      return steps.some((s) => s.node === event.node)
        ? set(event.node, { state: "running" })
        : [...steps, { node: event.node, kind: event.kind, state: "running", output: "" }];
    case "node_output":
      return set(event.node, { output: event.text });
    case "node_finished":
      return set(event.node, { state: "done" });
    case "waiting":
      return steps.some((s) => s.node === event.node)
        ? set(event.node, { state: "waiting" })
        : [...steps, { node: event.node, kind: "recite", state: "waiting", output: "" }];
    case "failed":
      return set(event.node, { state: "failed", output: event.message });
    case "finished":
      return steps;
  }
}

export function RoutineRun({
  profile,
  name,
  runId,
  onBack,
  onRecite,
}: {
  profile: Profile;
  name: string;
  /** The run to go on with (back from a recitation); null starts one. */
  runId: string | null;
  onBack: () => void;
  onRecite: (materialId: string, runId: string) => void;
}) {
  const t = useT();
  const [steps, setSteps] = useState<Step[]>([]);
  const [run, setRun] = useState<RoutineRunView | null>(null);
  const [recite, setRecite] = useState<{ id: string; title: string } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const started = useRef(false);

  useEffect(() => {
    // Once per screen: a second effect run (React's strict mode) must not start a second run.
    if (started.current) return;
    started.current = true;
    (async () => {
      try {
        const routine: Routine = await routinesApi.routineGet(name);
        const onEvent = (e: RoutineEvent) => setSteps((s) => stepsAfter(s, e));
        const view = runId ? await routinesApi.routineResume(runId, onEvent) : await routinesApi.routineRun(name, profile.id, "", onEvent);
        setRun(view);
        const at = routine.nodes.find((n) => n.id === view.at);
        if (view.status === "waiting" && at?.type === "recite") {
          const found = await api.materialsList({ lang: null, grade: null, search: at.material });
          const m = found.find((x) => x.title === at.material || x.id === at.material || x.slug === at.material) ?? found[0];
          if (m) setRecite({ id: m.id, title: m.title });
        }
      } catch (e) {
        setError(errorText(e));
      }
    })();
  }, [name, profile.id, runId]);

  const status = run?.status ?? "running";
  return (
    <>
      <Header onBack={onBack} />
      <main className="content stack" data-testid="routine-run-screen" data-status={error ? "failed" : status}>
        <h1 className="page-title">{t("routines.child.title", { name })}</h1>
        {error && (
          <p className="banner banner-error" role="alert" data-testid="routine-run-error">
            {error}
          </p>
        )}
        <ol className="stack routine-steps" data-testid="routine-steps">
          {steps
            .filter((s) => s.kind !== "start" && s.kind !== "end")
            .map((s) => (
              <li key={s.node} className={`card routine-step state-${s.state}`} data-testid="routine-step" data-node={s.node} data-state={s.state}>
                <strong>
                  {t(typeKey(s.kind as Routine["nodes"][number]["type"]))} · {t(`routines.state.${s.state}`)}
                </strong>
                {s.output && <p className="routine-step-output">{s.output}</p>}
              </li>
            ))}
        </ol>
        {!run && !error && <p className="muted">{t("routines.run.running")}</p>}
        {status === "waiting" && recite && run && (
          <button type="button" className="btn btn-primary btn-large" data-testid="routine-recite" onClick={() => onRecite(recite.id, run.id)}>
            {t("routines.child.recite", { title: recite.title })}
          </button>
        )}
        {status === "finished" && (
          <p className="banner banner-ok" role="status" data-testid="routine-done">
            {t("routines.child.done")}
          </p>
        )}
        {status === "failed" && run && (
          <p className="banner banner-error" role="alert">
            {t("routines.child.failed")}
          </p>
        )}
      </main>
    </>
  );
}
