import { useCallback, useEffect, useReducer } from "react";
import * as api from "../api";
import type { LampState } from "../api";
import { subscribe } from "../events";
import { initialLampUi, lampReducer } from "./reducer";

/** The lamp's state: read once with `lamp_status`, then kept current by `lamp://notice`. */
export function useLamp() {
  const [ui, dispatch] = useReducer(lampReducer, initialLampUi);

  useEffect(() => {
    let stale = false;
    (async () => {
      try {
        const s = await api.lampStatus();
        if (!stale) dispatch({ type: "state", state: s ?? null });
      } catch {
        // No lamp support (or no backend): the panel stays hidden.
      }
    })();
    const off = subscribe("lamp://notice", (notice) => dispatch({ type: "notice", notice }));
    return () => {
      stale = true;
      off();
    };
  }, []);

  const setState = useCallback((state: LampState | null) => dispatch({ type: "state", state }), []);
  return { ui, setState };
}
