import { cloneElement, isValidElement, type ReactElement, type ReactNode } from "react";

interface FieldProps {
  id: string;
  label: string;
  hint?: string;
  error?: string | null;
  children: ReactElement<Record<string, unknown>>;
  extra?: ReactNode;
}

/** A labelled form control with an optional hint and error line, wired up for screen readers. */
export function Field({ id, label, hint, error, children, extra }: FieldProps) {
  const hintId = hint ? `${id}-hint` : undefined;
  const errorId = error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(" ") || undefined;
  const control = isValidElement(children)
    ? cloneElement(children, {
        id,
        "aria-invalid": error ? true : undefined,
        "aria-describedby": describedBy,
      })
    : children;
  return (
    <div className={error ? "field field-invalid" : "field"}>
      <label htmlFor={id} className="field-label">
        {label}
      </label>
      {control}
      {hint && (
        <p id={hintId} className="field-hint">
          {hint}
        </p>
      )}
      {error && (
        <p id={errorId} className="field-error" role="alert">
          {error}
        </p>
      )}
      {extra}
    </div>
  );
}
