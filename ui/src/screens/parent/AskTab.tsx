import { lazy, Suspense, useEffect, useState, type FormEvent } from "react";
import * as api from "../../api";
import * as family from "../../familyApi";
import type { ProgressAnswer } from "../../protocol";
import { ChildPicker, useChildren } from "../../components/ChildPicker";
import { errorText } from "../../errors";
import { useLocale, useT, type MessageKey } from "../../i18n";
import { modelReady } from "../../modelReady";

const AnswerChart = lazy(() => import("./AnswerChart"));

/** The built-in questions (answered without a model), each a one-tap chip. */
const BUILT_IN: MessageKey[] = ["ask.q.accuracy", "ask.q.missed", "ask.q.reviews", "ask.q.minutes"];

/**
 * "问问进度 / Ask": a parent asks about a child's progress in words and
 * gets an answer with a chart (bars, a line or a pie). Without a model set
 * up, the built-in questions (the chips) still answer; with one, the model
 * writes its own read-only queries. The same call as `deskmate ask`.
 */
export function AskTab() {
  const t = useT();
  const { locale } = useLocale();
  const [error, setError] = useState<string | null>(null);
  const { children, childId, setChildId, name } = useChildren(setError);
  const [hasModel, setHasModel] = useState<boolean | null>(null);
  const [question, setQuestion] = useState("");
  const [asked, setAsked] = useState<string | null>(null);
  const [answer, setAnswer] = useState<ProgressAnswer | null>(null);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let stale = false;
    api
      .llmSettingsGet()
      .then((s) => !stale && setHasModel(modelReady(s)))
      .catch(() => !stale && setHasModel(false));
    return () => {
      stale = true;
    };
  }, []);

  async function ask(words: string) {
    const q = words.trim();
    if (!q || !childId || busy) return;
    setBusy(true);
    setError(null);
    setAnswer(null);
    setAsked(q);
    try {
      setAnswer(await family.ask(childId, q));
    } catch (e) {
      setError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    void ask(question);
  }

  return (
    <div className="stack" data-testid="ask-screen" lang={locale}>
      <ChildPicker
        id="ask-child"
        label={t("ask.child")}
        children={children}
        childId={childId}
        onChange={(id) => {
          setAnswer(null);
          setAsked(null);
          setChildId(id);
        }}
      />
      {children && children.length === 0 && <p className="empty">{t("goals.noChildren")}</p>}
      <p className="muted">{t("ask.intro", { name })}</p>
      {hasModel === false && (
        <p className="banner banner-info" role="status" data-testid="ask-no-model">
          {t("ask.noModel")}
        </p>
      )}
      <div className="chips" role="group" aria-label={t("ask.builtIn")}>
        {BUILT_IN.map((key) => (
          <button
            key={key}
            type="button"
            className="btn btn-secondary chip"
            data-testid="ask-chip"
            disabled={busy || !childId}
            onClick={() => {
              setQuestion(t(key));
              void ask(t(key));
            }}
          >
            {t(key)}
          </button>
        ))}
      </div>
      <form className="form-row" onSubmit={submit} data-testid="ask-form">
        <input
          className="input"
          data-testid="ask-input"
          aria-label={t("ask.question")}
          placeholder={t("ask.placeholder")}
          value={question}
          onChange={(e) => setQuestion(e.target.value)}
        />
        <button type="submit" className="btn btn-primary" data-testid="ask-submit" disabled={busy || !question.trim() || !childId}>
          {busy ? t("ask.asking") : t("ask.submit")}
        </button>
      </form>
      {error && (
        <p className="banner banner-error" role="alert" data-testid="ask-error">
          {error}
        </p>
      )}
      {answer && (
        <section className="card" data-testid="ask-answer" data-question={answer.question} aria-live="polite">
          <h2 className="section-title">{asked}</h2>
          <p className="small muted">{answer.question === "model" ? t("ask.byModel") : t("ask.byBuiltIn")}</p>
          <p data-testid="ask-answer-text">{answer.text}</p>
          {answer.chart && (
            <Suspense fallback={<p className="muted">{t("common.loading")}</p>}>
              <AnswerChart chart={answer.chart} />
            </Suspense>
          )}
        </section>
      )}
    </div>
  );
}
