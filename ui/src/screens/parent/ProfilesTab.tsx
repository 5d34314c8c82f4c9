import { useCallback, useEffect, useState, type FormEvent } from "react";
import * as api from "../../api";
import type { ChildDeleted, ChildExported, Profile, ProfileKind } from "../../api";
import { Field } from "../../components/Field";
import { avatarInitial } from "../../initial";
import { errorText } from "../../errors";
import { gradeKey, gradeLabel, useLocale, useT, type MessageKey } from "../../i18n";
import { checkGrade, checkName, checkPin, checkPinRepeat, digitsOnly, GRADES } from "../../validation";
import { ChildDataDialog, type ChildDataAction } from "./ChildDataDialog";

type FieldName = "name" | "grade" | "pin" | "pin2";
type Errors = Partial<Record<FieldName, MessageKey>>;

const EMPTY = { name: "", grade: "1", pin: "", pin2: "" };

/** The family's profiles: the list (a child's data exported or deleted, behind the PIN), and a new profile added. `parent` is the parent signed in. */
export function ProfilesTab({ parent }: { parent: Profile }) {
  const t = useT();
  const [dataAction, setDataAction] = useState<{ action: ChildDataAction; child: Profile } | null>(null);
  const [exported, setExported] = useState<ChildExported | null>(null);
  const [deleted, setDeleted] = useState<ChildDeleted | null>(null);
  const { locale } = useLocale();
  const [profiles, setProfiles] = useState<Profile[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [kind, setKind] = useState<ProfileKind>("child");
  const [values, setValues] = useState(EMPTY);
  const [errors, setErrors] = useState<Errors>({});
  const [apiError, setApiError] = useState<string | null>(null);
  const [added, setAdded] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const load = useCallback(async () => {
    setLoadError(null);
    try {
      setProfiles(await api.profilesList());
    } catch (e) {
      setLoadError(errorText(e));
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const set = (f: FieldName, v: string) => {
    setValues((x) => ({ ...x, [f]: v }));
    setErrors((x) => ({ ...x, [f]: undefined }));
    setAdded(null);
  };
  const err = (f: FieldName) => (errors[f] ? t(errors[f]!) : null);

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    if (busy) return;
    const found: Errors = {};
    const nameErr = checkName(values.name);
    if (nameErr) found.name = nameErr;
    if (kind === "child") {
      const g = checkGrade(values.grade);
      if (g) found.grade = g;
    } else {
      const p = checkPin(values.pin);
      if (p) found.pin = p;
      else {
        const r = checkPinRepeat(values.pin, values.pin2);
        if (r) found.pin2 = r;
      }
    }
    setErrors(found);
    setApiError(null);
    setAdded(null);
    if (Object.keys(found).length > 0) return;
    setBusy(true);
    try {
      const created = await api.profilesAdd(
        kind === "child"
          ? { kind, name: values.name.trim(), grade: Number(values.grade), locale }
          : { kind, name: values.name.trim(), pin: values.pin, locale },
      );
      setAdded(created.name);
      setValues(EMPTY);
      void load();
    } catch (e) {
      setApiError(errorText(e));
    } finally {
      setBusy(false);
    }
  }

  return (
    <div className="two-col">
      <section className="card" aria-labelledby="profiles-list-title">
        <h2 id="profiles-list-title" className="section-title">
          {t("profiles.listTitle")}
        </h2>
        {loadError && (
          <p className="banner banner-error" role="alert">
            {t("profiles.loadError", { error: loadError })}
          </p>
        )}
        {profiles === null && !loadError && <p className="muted">{t("common.loading")}</p>}
        <ul className="profile-list" data-testid="profile-list">
          {(profiles ?? []).map((p) => (
            <li key={p.id} className="profile-row" data-testid="profile-row" data-kind={p.kind} data-name={p.name}>
              <span className={`avatar avatar-small avatar-${p.kind}`} aria-hidden="true">
                {avatarInitial(p.name)}
              </span>
              <span className="profile-row-name">{p.name}</span>
              <span className="tag">{t(p.kind === "parent" ? "kind.parent" : "kind.child")}</span>
              {p.kind === "child" && gradeLabel(t, p.grade) && <span className="tag">{gradeLabel(t, p.grade)}</span>}
              {p.kind === "parent" && p.has_pin && <span className="tag tag-ok">{t("profiles.hasPin")}</span>}
              {p.kind === "child" && (
                <span className="profile-row-actions">
                  <button
                    type="button"
                    className="btn btn-secondary"
                    data-testid="child-export"
                    onClick={() => setDataAction({ action: "export", child: p })}
                  >
                    {t("childData.export")}
                  </button>{" "}
                  <button
                    type="button"
                    className="btn btn-secondary"
                    data-testid="child-delete"
                    onClick={() => setDataAction({ action: "delete", child: p })}
                  >
                    {t("childData.delete")}
                  </button>
                </span>
              )}
            </li>
          ))}
        </ul>
        {exported && (
          <p className="banner banner-ok" role="status" data-testid="child-exported">
            {t("childData.exported", {
              name: exported.name,
              file: exported.file,
              rows: exported.tables.reduce((n, x) => n + x.rows, 0),
              files: exported.workspace_files,
            })}
          </p>
        )}
        {deleted && (
          <div className="banner banner-ok" role="status" data-testid="child-deleted">
            <p>{t("childData.deleted", { name: deleted.name })}</p>
            <ul data-testid="child-deleted-tables">
              {deleted.tables.map((x) => (
                <li key={x.table}>{t("childData.deletedRows", { table: x.table, n: x.rows })}</li>
              ))}
              {deleted.paths_removed.map((path) => (
                <li key={path}>{t("childData.deletedPath", { path })}</li>
              ))}
            </ul>
            {deleted.sent_to_family && <p>{t("childData.sentToFamily")}</p>}
          </div>
        )}
        {dataAction && (
          <ChildDataDialog
            action={dataAction.action}
            child={dataAction.child}
            parent={parent}
            onCancel={() => setDataAction(null)}
            onExported={(done) => {
              setDataAction(null);
              setDeleted(null);
              setExported(done);
            }}
            onDeleted={(done) => {
              setDataAction(null);
              setExported(null);
              setDeleted(done);
              void load();
            }}
          />
        )}
      </section>

      <section className="card" aria-labelledby="profiles-add-title">
        <h2 id="profiles-add-title" className="section-title">
          {t("profiles.addTitle")}
        </h2>
        <form className="form" onSubmit={submit} noValidate data-testid="profile-form">
          <div className="field">
            <span className="field-label" id="profile-kind-label">
              {t("profiles.kind")}
            </span>
            <div className="segmented" role="group" aria-labelledby="profile-kind-label">
              {(["child", "parent"] as const).map((k) => (
                <button
                  key={k}
                  type="button"
                  className="segmented-item"
                  data-testid={`profile-kind-${k}`}
                  aria-pressed={kind === k}
                  onClick={() => {
                    setKind(k);
                    setErrors({});
                    setApiError(null);
                    setAdded(null);
                  }}
                >
                  {t(k === "parent" ? "kind.parent" : "kind.child")}
                </button>
              ))}
            </div>
          </div>
          <Field id="profile-name" label={t("profiles.name")} error={err("name")}>
            <input
              data-testid="profile-name"
              className="input"
              type="text"
              autoComplete="off"
              value={values.name}
              onChange={(e) => set("name", e.target.value)}
            />
          </Field>
          {kind === "child" ? (
            <Field id="profile-grade" label={t("profiles.grade")} error={err("grade")}>
              <select
                data-testid="profile-grade"
                className="input"
                value={values.grade}
                onChange={(e) => set("grade", e.target.value)}
              >
                {GRADES.map((g) => (
                  <option key={g} value={String(g)}>
                    {t(gradeKey(g))}
                  </option>
                ))}
              </select>
            </Field>
          ) : (
            <div className="form-row">
              <Field id="profile-pin" label={t("profiles.pin")} error={err("pin")}>
                <input
                  data-testid="profile-pin"
                  className="input input-pin"
                  type="password"
                  inputMode="numeric"
                  autoComplete="new-password"
                  maxLength={8}
                  value={values.pin}
                  onChange={(e) => set("pin", digitsOnly(e.target.value))}
                />
              </Field>
              <Field id="profile-pin2" label={t("profiles.pin2")} error={err("pin2")}>
                <input
                  data-testid="profile-pin2"
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
          )}
          {apiError && (
            <p className="banner banner-error" role="alert" data-testid="profile-error">
              {t("profiles.failed", { error: apiError })}
            </p>
          )}
          {added && (
            <p className="banner banner-ok" role="status" data-testid="profile-added">
              {t("profiles.added", { name: added })}
            </p>
          )}
          <button type="submit" className="btn btn-primary" data-testid="profile-submit" disabled={busy}>
            {busy ? t("common.saving") : t("profiles.submit")}
          </button>
        </form>
      </section>
    </div>
  );
}
