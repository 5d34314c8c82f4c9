import { useEffect, useState, type FormEvent } from "react";
import * as family from "../../familyApi";
import type { Limits } from "../../protocol";
import { Field } from "../../components/Field";
import { errorText } from "../../errors";
import { useT, type MessageKey } from "../../i18n";

type FieldName = "chat" | "calls" | "cost" | "from" | "to";
type Values = Record<FieldName, string>;
type Errors = Partial<Record<FieldName, MessageKey>>;

const EMPTY: Values = { chat: "", calls: "", cost: "", from: "", to: "" };

/** The most each limit may be (the core's own bounds: a day has 1440 minutes). */
const MAX_MINUTES = 1440;
const MAX_CALLS = 100_000;
const MAX_COST = 1000;

const TIME = /^([01]?\d|2[0-3]):[0-5]\d$/;

function shown(l: Limits): Values {
  return {
    chat: l.chat_minutes == null ? "" : String(l.chat_minutes),
    calls: l.model_calls == null ? "" : String(l.model_calls),
    cost: l.cost_usd == null ? "" : String(l.cost_usd),
    from: l.quiet?.from ?? "",
    to: l.quiet?.to ?? "",
  };
}

/** Every problem of the typed limits, by field; empty fields are "no limit". */
export function checkLimits(v: Values): Errors {
  const found: Errors = {};
  const whole = (s: string, max: number, key: FieldName) => {
    if (!s.trim()) return;
    const n = Number(s.trim());
    if (!/^\d+$/.test(s.trim())) found[key] = "limits.err.whole";
    else if (n > max) found[key] = key === "chat" ? "limits.err.minutes" : "limits.err.calls";
  };
  whole(v.chat, MAX_MINUTES, "chat");
  whole(v.calls, MAX_CALLS, "calls");
  if (v.cost.trim()) {
    const c = Number(v.cost.trim());
    if (!/^\d+(\.\d+)?$/.test(v.cost.trim()) || !Number.isFinite(c)) found.cost = "limits.err.number";
    else if (c > MAX_COST) found.cost = "limits.err.cost";
  }
  const from = v.from.trim();
  const to = v.to.trim();
  if (from || to) {
    if (!from) found.from = "limits.err.both";
    else if (!TIME.test(from)) found.from = "limits.err.time";
    if (!to) found.to = "limits.err.both";
    else if (!TIME.test(to)) found.to = "limits.err.time";
    if (!found.from && !found.to && from.padStart(5, "0") === to.padStart(5, "0")) found.to = "limits.err.same";
  }
  return found;
}

function limitsOf(v: Values): Limits {
  const l: Limits = {};
  if (v.chat.trim()) l.chat_minutes = Number(v.chat.trim());
  if (v.calls.trim()) l.model_calls = Number(v.calls.trim());
  if (v.cost.trim()) l.cost_usd = Number(v.cost.trim());
  if (v.from.trim() && v.to.trim()) l.quiet = { from: v.from.trim(), to: v.to.trim() };
  return l;
}

/**
 * A child's daily limits and quiet hours (`deskmate limits set`): an empty
 * field is no limit; every problem is shown under its field before anything
 * is sent, and the core's refusal, if any, above the button.
 */
export function LimitsForm({ childId, name }: { childId: string; name: string }) {
  const t = useT();
  const [values, setValues] = useState<Values>(EMPTY);
  const [errors, setErrors] = useState<Errors>({});
  const [apiError, setApiError] = useState<string | null>(null);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    if (!childId) return;
    let stale = false;
    setValues(EMPTY);
    setErrors({});
    setSaved(false);
    setApiError(null);
    family
      .limitsGet(childId)
      .then((l) => !stale && setValues(shown(l ?? {})))
      .catch((e) => !stale && setApiError(errorText(e)));
    return () => {
      stale = true;
    };
  }, [childId]);

  const set = (f: FieldName, v: string) => {
    setValues((x) => ({ ...x, [f]: v }));
    setErrors((x) => ({ ...x, [f]: undefined }));
    setSaved(false);
  };
  const err = (f: FieldName) => (errors[f] ? t(errors[f]!) : null);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (busy) return;
    const found = checkLimits(values);
    setErrors(found);
    setApiError(null);
    setSaved(false);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      setValues(shown(await family.limitsSet(childId, limitsOf(values))));
      setSaved(true);
    } catch (e) {
      setApiError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  const input = (f: FieldName, testId: string, mode: "numeric" | "decimal" | "text", placeholder: string) => (
    <input
      data-testid={testId}
      className="input"
      type="text"
      inputMode={mode}
      autoComplete="off"
      placeholder={placeholder}
      value={values[f]}
      onChange={(e) => set(f, e.target.value)}
    />
  );

  return (
    <form className="card form" onSubmit={submit} noValidate data-testid="limits-form" aria-labelledby="limits-title">
      <h2 id="limits-title" className="section-title">
        {t("limits.title", { name })}
      </h2>
      <p className="small muted">{t("limits.intro")}</p>
      <div className="form-row">
        <Field id="limits-chat" label={t("limits.chatMinutes")} error={err("chat")}>
          {input("chat", "limits-chat", "numeric", t("limits.none"))}
        </Field>
        <Field id="limits-calls" label={t("limits.modelCalls")} error={err("calls")}>
          {input("calls", "limits-calls", "numeric", t("limits.none"))}
        </Field>
        <Field id="limits-cost" label={t("limits.cost")} error={err("cost")}>
          {input("cost", "limits-cost", "decimal", t("limits.none"))}
        </Field>
      </div>
      <div className="form-row">
        <Field id="limits-from" label={t("limits.quietFrom")} error={err("from")}>
          {input("from", "limits-from", "text", "21:00")}
        </Field>
        <Field id="limits-to" label={t("limits.quietTo")} error={err("to")}>
          {input("to", "limits-to", "text", "07:00")}
        </Field>
      </div>
      {apiError && (
        <p className="banner banner-error" role="alert" data-testid="limits-error">
          {apiError}
        </p>
      )}
      {saved && (
        <p className="banner banner-ok" role="status" data-testid="limits-saved">
          {t("limits.saved")}
        </p>
      )}
      <button type="submit" className="btn btn-primary" data-testid="limits-save" disabled={busy || !childId}>
        {busy ? t("common.saving") : t("limits.save")}
      </button>
    </form>
  );
}
