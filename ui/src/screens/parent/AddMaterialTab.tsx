import { useState, type FormEvent } from "react";
import * as api from "../../api";
import type { Lang, Profile } from "../../api";
import { Field } from "../../components/Field";
import { errorText } from "../../errors";
import { gradeKey, useT, type MessageKey } from "../../i18n";
import { GRADES } from "../../validation";

type FieldName = "title" | "body";
type Errors = Partial<Record<FieldName, MessageKey>>;

const EMPTY = { title: "", lang: "zh" as Lang, author: "", grade: "", body: "" };

export function AddMaterialTab({ parent }: { parent: Profile }) {
  const t = useT();
  const [values, setValues] = useState(EMPTY);
  const [errors, setErrors] = useState<Errors>({});
  const [apiError, setApiError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  function set<K extends keyof typeof EMPTY>(f: K, v: (typeof EMPTY)[K]) {
    setValues((x) => ({ ...x, [f]: v }));
    if (f === "title" || f === "body") setErrors((x) => ({ ...x, [f]: undefined }));
    setSaved(null);
  }
  const err = (f: FieldName) => (errors[f] ? t(errors[f]!) : null);

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    if (busy) return;
    const found: Errors = {};
    if (!values.title.trim()) found.title = "err.titleRequired";
    if (!values.body.trim()) found.body = "err.bodyRequired";
    setErrors(found);
    setApiError(null);
    setSaved(null);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const author = values.author.trim();
      const created = await api.materialsAdd(
        {
          lang: values.lang,
          title: values.title.trim(),
          body: values.body,
          author: author ? author : null,
          grade: values.grade ? Number(values.grade) : null,
        },
        parent.id,
      );
      setSaved(created.title);
      setValues(EMPTY);
    } catch (e) {
      setApiError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="card" aria-labelledby="add-material-title">
      <h2 id="add-material-title" className="section-title">
        {t("addMaterial.title")}
      </h2>
      <p className="muted">{t("addMaterial.intro")}</p>
      <form className="form" onSubmit={submit} noValidate data-testid="material-form">
        <div className="form-row form-row-wide-first">
          <Field id="material-title" label={t("addMaterial.fieldTitle")} error={err("title")}>
            <input
              data-testid="material-title-input"
              className="input"
              type="text"
              autoComplete="off"
              value={values.title}
              onChange={(e) => set("title", e.target.value)}
            />
          </Field>
          <Field id="material-lang" label={t("addMaterial.lang")}>
            <select
              data-testid="material-lang"
              className="input"
              value={values.lang}
              onChange={(e) => set("lang", e.target.value === "en" ? "en" : "zh")}
            >
              <option value="zh">{t("lang.zh")}</option>
              <option value="en">{t("lang.en")}</option>
            </select>
          </Field>
        </div>
        <div className="form-row">
          <Field id="material-author" label={t("addMaterial.author")}>
            <input
              data-testid="material-author"
              className="input"
              type="text"
              autoComplete="off"
              value={values.author}
              onChange={(e) => set("author", e.target.value)}
            />
          </Field>
          <Field id="material-grade" label={t("addMaterial.grade")}>
            <select
              data-testid="material-grade"
              className="input"
              value={values.grade}
              onChange={(e) => set("grade", e.target.value)}
            >
              <option value="">{t("grade.any")}</option>
              {GRADES.map((g) => (
                <option key={g} value={String(g)}>
                  {t(gradeKey(g))}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <Field id="material-body" label={t("addMaterial.body")} hint={t("addMaterial.bodyHint")} error={err("body")}>
          <textarea
            data-testid="material-body"
            className="input textarea"
            rows={8}
            lang={values.lang === "zh" ? "zh-CN" : "en"}
            value={values.body}
            onChange={(e) => set("body", e.target.value)}
          />
        </Field>
        {apiError && (
          <p className="banner banner-error" role="alert" data-testid="material-error">
            {t("addMaterial.failed", { error: apiError })}
          </p>
        )}
        {saved && (
          <p className="banner banner-ok" role="status" data-testid="material-saved">
            {t("addMaterial.saved", { title: saved })}
          </p>
        )}
        <button type="submit" className="btn btn-primary" data-testid="material-submit" disabled={busy}>
          {busy ? t("common.saving") : t("addMaterial.submit")}
        </button>
      </form>
    </section>
  );
}
