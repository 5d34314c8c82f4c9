/**
 * The family's children for the parent tabs that look at one child at a
 * time (reports, what happened, goals): `useChildren` loads them and picks
 * the first; `ChildPicker` is the labelled select that changes the child.
 */
import { useEffect, useRef, useState } from "react";
import * as api from "../api";
import type { Profile } from "../api";
import { errorText } from "../errors";

/** The children (null while loading) and the one chosen; `onError` hears why they could not be read. */
export function useChildren(onError: (message: string) => void) {
  const [children, setChildren] = useState<Profile[] | null>(null);
  const [childId, setChildId] = useState("");
  const report = useRef(onError);
  report.current = onError;
  useEffect(() => {
    let stale = false;
    (async () => {
      try {
        const kids = ((await api.profilesList()) ?? []).filter((p) => p.kind === "child");
        if (stale) return;
        setChildren(kids);
        setChildId((id) => id || kids[0]?.id || "");
      } catch (e) {
        if (!stale) report.current(errorText(e));
      }
    })();
    return () => {
      stale = true;
    };
  }, []);
  const name = children?.find((c) => c.id === childId)?.name ?? "";
  return { children, childId, setChildId, name };
}

/** A labelled select of the children; `id` is also its test id. */
export function ChildPicker({
  id,
  label,
  children,
  childId,
  onChange,
}: {
  id: string;
  label: string;
  children: Profile[] | null;
  childId: string;
  onChange: (childId: string) => void;
}) {
  return (
    <div className="filter-group">
      <label className="field-label" htmlFor={id}>
        {label}
      </label>
      <select
        id={id}
        data-testid={id}
        className="input"
        value={childId}
        onChange={(e) => onChange(e.target.value)}
        disabled={!children || children.length === 0}
      >
        {(children ?? []).map((c) => (
          <option key={c.id} value={c.id}>
            {c.name}
          </option>
        ))}
      </select>
    </div>
  );
}
