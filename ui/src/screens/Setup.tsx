import { useState, type FormEvent } from "react";
import * as api from "../api";
import { Field } from "../components/Field";
import { Header } from "../components/Header";
import { errorText } from "../errors";
import { gradeKey, useLocale, useT, type MessageKey } from "../i18n";
import { JoinFamily } from "./JoinFamily";
import { checkGrade, checkName, checkPin, checkPinRepeat, digitsOnly, GRADES } from "../validation";

type FieldName = "parentName" | "pin" | "pin2" | "childName" | "childGrade";
type Errors = Partial<Record<FieldName, MessageKey>>;

export function validateSetup(v: Record<FieldName, string>): Errors {
  const errors: Errors = {};
  const put = (f: FieldName, e: MessageKey | null) => {
    if (e) errors[f] = e;
  };
  put("parentName", checkName(v.parentName));
  put("pin", checkPin(v.pin));
  if (!errors.pin) put("pin2", checkPinRepeat(v.pin, v.pin2));
  put("childName", checkName(v.childName));
  put("childGrade", checkGrade(v.childGrade));
  return errors;
}

/** First run: one parent (with PIN) and one child, created together by `setup_family`. */
export function Setup({ onDone }: { onDone: () => void }) {
  const t = useT();
  const { locale } = useLocale();
  const [values, setValues] = useState<Record<FieldName, string>>({
    parentName: "",
    pin: "",
    pin2: "",
    childName: "",
    childGrade: "1",
  });
  const [errors, setErrors] = useState<Errors>({});
  const [submitError, setSubmitError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [joining, setJoining] = useState(false);

  const set = (f: FieldName, value: string) => {
    setValues((v) => ({ ...v, [f]: value }));
    if (errors[f]) setErrors((e) => ({ ...e, [f]: undefined }));
  };
  const err = (f: FieldName) => (errors[f] ? t(errors[f]!) : null);

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    if (busy) return;
    const found = validateSetup(values);
    setErrors(found);
    setSubmitError(null);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      await api.setupFamily(
        { kind: "parent", name: values.parentName.trim(), pin: values.pin, locale },
        { kind: "child", name: values.childName.trim(), grade: Number(values.childGrade), locale },
      );
      onDone();
    } catch (e) {
      setSubmitError(errorText(e));
      setBusy(false);
    }
  }

  const hasErrors = Object.values(errors).some(Boolean);

  if (joining) {
    // A child's tablet joins a family instead: its children come by sync.
    return (
      <div className="screen" data-testid="setup">
        <Header />
        <main className="content content-narrow">
          <h1 className="page-title">{t("setup.title")}</h1>
          <JoinFamily onJoined={onDone} onCancel={() => setJoining(false)} />
        </main>
      </div>
    );
  }

  return (
    <div className="screen" data-testid="setup">
      <Header />
      <main className="content content-narrow">
        <h1 className="page-title">{t("setup.title")}</h1>
        <p className="page-intro">{t("setup.intro")}</p>
        <p>
          <button type="button" className="btn btn-ghost" data-testid="setup-join" onClick={() => setJoining(true)}>
            {t("join.link")}
          </button>
        </p>
        <form className="card form" onSubmit={submit} noValidate>
          <fieldset className="form-section">
            <legend>{t("setup.parentSection")}</legend>
            <Field id="setup-parent-name" label={t("setup.parentName")} error={err("parentName")}>
              <input
                data-testid="setup-parent-name"
                className="input"
                type="text"
                autoComplete="off"
                placeholder={t("setup.parentNamePlaceholder")}
                value={values.parentName}
                onChange={(e) => set("parentName", e.target.value)}
              />
            </Field>
            <div className="form-row">
              <Field id="setup-parent-pin" label={t("setup.pin")} hint={t("setup.pinHint")} error={err("pin")}>
                <input
                  data-testid="setup-parent-pin"
                  className="input input-pin"
                  type="password"
                  inputMode="numeric"
                  autoComplete="new-password"
                  maxLength={8}
                  value={values.pin}
                  onChange={(e) => set("pin", digitsOnly(e.target.value))}
                />
              </Field>
              <Field id="setup-parent-pin2" label={t("setup.pin2")} error={err("pin2")}>
                <input
                  data-testid="setup-parent-pin2"
                  className="input input-pin"
                  type="password"
                  inputMode="numeric"
                  autoComplete="new-password"
                  maxLength={8}
                  value={values.pin2}
                  onChange={(e) => set("pin2", digitsOnly(e.target.value))}
                />
              </Field>
            </div>
          </fieldset>
          <fieldset className="form-section">
            <legend>{t("setup.childSection")}</legend>
            <div className="form-row">
              <Field id="setup-child-name" label={t("setup.childName")} error={err("childName")}>
                <input
                  data-testid="setup-child-name"
                  className="input"
                  type="text"
                  autoComplete="off"
                  placeholder={t("setup.childNamePlaceholder")}
                  value={values.childName}
                  onChange={(e) => set("childName", e.target.value)}
                />
              </Field>
              <Field id="setup-child-grade" label={t("setup.childGrade")} error={err("childGrade")}>
                <select
                  data-testid="setup-child-grade"
                  className="input"
                  value={values.childGrade}
                  onChange={(e) => set("childGrade", e.target.value)}
                >
                  {GRADES.map((g) => (
                    <option key={g} value={String(g)}>
                      {t(gradeKey(g))}
                    </option>
                  ))}
                </select>
              </Field>
            </div>
          </fieldset>
          {hasErrors && (
            <p className="banner banner-error" role="alert" data-testid="setup-invalid">
              {t("err.fixAbove")}
            </p>
          )}
          {submitError && (
            <p className="banner banner-error" role="alert" data-testid="setup-error">
              {t("setup.failed", { error: submitError })}
            </p>
          )}
          <button type="submit" className="btn btn-primary btn-large" data-testid="setup-submit" disabled={busy}>
            {busy ? t("common.saving") : t("setup.submit")}
          </button>
        </form>
      </main>
    </div>
  );
}
