import { useEffect, useRef, useState, type FormEvent } from "react";
import * as family from "../../familyApi";
import type { ChildDeleted, ChildExported, Profile } from "../../protocol";
import { errorText } from "../../errors";
import { useEscape } from "../../useEscape";
import { useT } from "../../i18n";
import { digitsOnly } from "../../validation";

export type ChildDataAction = "export" | "delete";

interface ChildDataDialogProps {
  action: ChildDataAction;
  child: Profile;
  /** The parent signed in to the parent area: their PIN is asked again. */
  parent: Profile;
  onExported: (done: ChildExported) => void;
  onDeleted: (done: ChildDeleted) => void;
  onCancel: () => void;
}

/**
 * A child's data as a whole, behind the parent's PIN and a confirmation:
 * export it to a zip (the path proposed in Downloads, editable — the window
 * has no file dialog) or delete the child with everything stored about them
 * (the child's name typed to confirm, as `deskmate profiles delete` asks).
 */
export function ChildDataDialog({ action, child, parent, onExported, onDeleted, onCancel }: ChildDataDialogProps) {
  const t = useT();
  const [path, setPath] = useState("");
  const [typed, setTyped] = useState("");
  const [pin, setPin] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const firstRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    firstRef.current?.focus();
    if (action !== "export") return;
    let stale = false;
    family
      .exportDefaultPath(child.id)
      .then((p) => !stale && setPath((x) => x || p))
      .catch(() => undefined);
    return () => {
      stale = true;
    };
  }, [action, child.id]);

  useEscape(onCancel);

  const confirmed = action === "export" ? !!path.trim() : typed.trim() === child.name;

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    if (busy) return;
    if (action === "delete" && !confirmed) {
      setError(t("childData.typeName", { name: child.name }));
      return;
    }
    if (action === "export" && !confirmed) {
      setError(t("childData.pathEmpty"));
      return;
    }
    if (!pin) {
      setError(t("pin.empty"));
      return;
    }
    setBusy(true);
    setError(null);
    try {
      if (action === "export") onExported(await family.profileExport(child.id, parent.id, pin, path.trim()));
      else onDeleted(await family.profileDelete(child.id, parent.id, pin));
    } catch (e) {
      setError(errorText(e));
      setPin("");
      setBusy(false);
    }
  }

  const title = action === "export" ? t("childData.exportTitle", { name: child.name }) : t("childData.deleteTitle", { name: child.name });
  return (
    <div className="dialog-backdrop" onClick={(e) => e.target === e.currentTarget && onCancel()}>
      <form
        className="dialog card"
        role="dialog"
        aria-modal="true"
        aria-labelledby="child-data-title"
        data-testid={`child-${action}-dialog`}
        onSubmit={submit}
        noValidate
      >
        <h2 id="child-data-title" className="dialog-title">
          {title}
        </h2>
        {action === "export" ? (
          <>
            <p className="small muted">{t("childData.exportIntro")}</p>
            <label htmlFor="child-export-path" className="field-label">
              {t("childData.path")}
            </label>
            <input
              ref={firstRef}
              id="child-export-path"
              data-testid="child-export-path"
              className="input"
              type="text"
              autoComplete="off"
              value={path}
              onChange={(e) => setPath(e.target.value)}
            />
          </>
        ) : (
          <>
            <p className="banner banner-error" data-testid="child-delete-warning">
              {t("childData.deleteWarning", { name: child.name })}
            </p>
            <label htmlFor="child-delete-name" className="field-label">
              {t("childData.typeName", { name: child.name })}
            </label>
            <input
              ref={firstRef}
              id="child-delete-name"
              data-testid="child-delete-name"
              className="input"
              type="text"
              autoComplete="off"
              value={typed}
              onChange={(e) => setTyped(e.target.value)}
            />
          </>
        )}
        <label htmlFor="child-data-pin" className="field-label">
          {t("childData.pin", { name: parent.name })}
        </label>
        <input
          id="child-data-pin"
          data-testid="child-data-pin"
          className="input input-pin"
          type="password"
          inputMode="numeric"
          autoComplete="off"
          maxLength={8}
          value={pin}
          onChange={(e) => setPin(digitsOnly(e.target.value))}
        />
        {error && (
          <p className="field-error" role="alert" data-testid="child-data-error">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn btn-secondary" onClick={onCancel}>
            {t("common.cancel")}
          </button>
          <button
            type="submit"
            className={action === "delete" ? "btn btn-danger" : "btn btn-primary"}
            data-testid="child-data-submit"
            disabled={busy || !confirmed || !pin}
          >
            {busy ? t("childData.working") : action === "export" ? t("childData.export") : t("childData.delete")}
          </button>
        </div>
      </form>
    </div>
  );
}
