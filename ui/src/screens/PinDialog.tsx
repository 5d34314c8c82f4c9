import { useEffect, useRef, useState, type FormEvent } from "react";
import * as api from "../api";
import type { Profile } from "../api";
import { errorText } from "../errors";
import { useEscape } from "../useEscape";
import { useT } from "../i18n";
import { digitsOnly } from "../validation";

interface PinDialogProps {
  profile: Profile;
  onUnlocked: (profile: Profile) => void;
  onCancel: () => void;
}

/** Asks a parent for the PIN and checks it with `parent_unlock`; a wrong PIN or a lock is said in the UI language (errors.ts). */
export function PinDialog({ profile, onUnlocked, onCancel }: PinDialogProps) {
  const t = useT();
  const [pin, setPin] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const inputRef = useRef<HTMLInputElement>(null);

  useEffect(() => {
    inputRef.current?.focus();
  }, []);

  useEscape(onCancel);

  async function submit(ev: FormEvent) {
    ev.preventDefault();
    if (busy) return;
    if (!pin) {
      setError(t("pin.empty"));
      inputRef.current?.focus();
      return;
    }
    setBusy(true);
    setError(null);
    try {
      await api.parentUnlock(profile.id, pin);
      onUnlocked(profile);
    } catch (e) {
      setError(errorText(e));
      setPin("");
      setBusy(false);
      inputRef.current?.focus();
    }
  }

  return (
    <div className="dialog-backdrop" onClick={(e) => e.target === e.currentTarget && onCancel()}>
      <form
        className="dialog card"
        role="dialog"
        aria-modal="true"
        aria-labelledby="pin-title"
        data-testid="pin-dialog"
        onSubmit={submit}
        noValidate
      >
        <h2 id="pin-title" className="dialog-title">
          {t("pin.title", { name: profile.name })}
        </h2>
        <label htmlFor="pin-input" className="field-label">
          {t("pin.label")}
        </label>
        <input
          ref={inputRef}
          id="pin-input"
          data-testid="pin-input"
          className="input input-pin input-pin-large"
          type="password"
          inputMode="numeric"
          autoComplete="off"
          maxLength={8}
          value={pin}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? "pin-error" : undefined}
          onChange={(e) => setPin(digitsOnly(e.target.value))}
        />
        {error && (
          <p id="pin-error" className="field-error" role="alert" data-testid="pin-error">
            {error}
          </p>
        )}
        <div className="dialog-actions">
          <button type="button" className="btn btn-secondary" onClick={onCancel}>
            {t("common.cancel")}
          </button>
          <button type="submit" className="btn btn-primary" data-testid="pin-submit" disabled={busy}>
            {busy ? t("pin.checking") : t("pin.submit")}
          </button>
        </div>
      </form>
    </div>
  );
}
