import { useState } from "react";
import { Icon } from "../Icon";
import { useT } from "../../i18n";
import { lampAttached } from "../../lamp/reducer";
import { useLamp } from "../../lamp/useLamp";
import { eventLabel, LampPanel } from "./LampPanel";

/** A collapsible drawer with the virtual lamp, on child screens, shown only while a lamp (or the simulator) is attached. */
export function LampDock() {
  const t = useT();
  const { ui } = useLamp();
  const [open, setOpen] = useState(false);
  if (!lampAttached(ui) || !ui.state) return null;
  return (
    <aside className={open ? "lamp-dock is-open" : "lamp-dock"} aria-label={t("lamp.title")}>
      <button
        type="button"
        className="lamp-dock-toggle"
        data-testid="lamp-dock-toggle"
        aria-expanded={open}
        aria-controls="lamp-dock-body"
        onClick={() => setOpen((o) => !o)}
      >
        <Icon name="lamp" /> {open ? t("lamp.hide") : t("lamp.title")}
      </button>
      {open && (
        <div className="lamp-dock-body card" id="lamp-dock-body">
          <LampPanel state={ui.state} lastEvent={ui.lastEvent ? eventLabel(t, ui.lastEvent) : null} />
        </div>
      )}
    </aside>
  );
}
