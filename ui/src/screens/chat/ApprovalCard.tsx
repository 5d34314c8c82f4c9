import { useState } from "react";
import * as api from "../../api";
import type { ApprovalAnswer, ApprovalDecision, PendingApproval, Profile } from "../../api";
import { errorText } from "../../errors";
import { useT } from "../../i18n";
import { PinDialog } from "../PinDialog";

interface ApprovalCardProps {
  approvals: PendingApproval[];
  /** A child's screen: a parent's PIN is asked before anything is decided. */
  needsPin: boolean;
  /** Every waiting call decided: the run goes on. */
  onDecide: (answers: ApprovalAnswer[]) => void;
}

/**
 * The tool calls a run paused on, each waiting for a parent: approve (with
 * the arguments as they are, or as changed), reject with a reason, or
 * answer in place of the tool. On a child's screen the parent's PIN comes
 * first. Once every call is decided the answers go back together.
 */
export function ApprovalCard({ approvals, needsPin, onDecide }: ApprovalCardProps) {
  const t = useT();
  const [unlocked, setUnlocked] = useState(!needsPin);
  const [parent, setParent] = useState<Profile | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [args, setArgs] = useState<Record<string, string>>(() =>
    Object.fromEntries(approvals.map((a) => [a.tool_call_id, a.arguments])),
  );
  const [notes, setNotes] = useState<Record<string, string>>({});
  const [decided, setDecided] = useState<Record<string, ApprovalDecision>>({});

  async function askParent() {
    setError(null);
    try {
      const first = (await api.profilesList()).find((p) => p.kind === "parent");
      if (first) setParent(first);
      else setError(t("chat.approval.noParent"));
    } catch (e) {
      setError(errorText(e));
    }
  }

  function decide(id: string, decision: ApprovalDecision) {
    const next = { ...decided, [id]: decision };
    setDecided(next);
    if (approvals.every((a) => next[a.tool_call_id])) {
      onDecide(approvals.map((a) => ({ tool_call_id: a.tool_call_id, decision: next[a.tool_call_id] })));
    }
  }

  return (
    <div className="card approval-card" role="group" data-testid="approval-card">
      {approvals.map((a, i) => {
        const note = (notes[a.tool_call_id] ?? "").trim();
        const changed = (args[a.tool_call_id] ?? a.arguments) !== a.arguments;
        const done = !!decided[a.tool_call_id];
        return (
          <div key={a.tool_call_id} className="approval-item" data-testid="approval-item" data-decided={done}>
            <p className="approval-title">{t("chat.approval.title", { tool: a.tool })}</p>
            {unlocked ? (
              <>
                <label className="field-label" htmlFor={`approval-args-${i}`}>
                  {t("chat.approval.args")}
                </label>
                <textarea
                  id={`approval-args-${i}`}
                  className="input"
                  data-testid="approval-args"
                  value={args[a.tool_call_id] ?? a.arguments}
                  disabled={done}
                  onChange={(e) => setArgs({ ...args, [a.tool_call_id]: e.target.value })}
                />
                <input
                  className="input"
                  data-testid="approval-note"
                  placeholder={t("chat.approval.note")}
                  value={notes[a.tool_call_id] ?? ""}
                  disabled={done}
                  onChange={(e) => setNotes({ ...notes, [a.tool_call_id]: e.target.value })}
                />
                <div className="approval-actions">
                  <button
                    type="button"
                    className="btn btn-primary"
                    data-testid="approval-approve"
                    disabled={done}
                    onClick={() =>
                      decide(
                        a.tool_call_id,
                        changed ? { decision: "edit", arguments: args[a.tool_call_id] } : { decision: "approve" },
                      )
                    }
                  >
                    {t("chat.approval.approve")}
                  </button>
                  <button
                    type="button"
                    className="btn btn-secondary"
                    data-testid="approval-reject"
                    disabled={done || !note}
                    onClick={() => decide(a.tool_call_id, { decision: "reject", reason: note })}
                  >
                    {t("chat.approval.reject")}
                  </button>
                  <button
                    type="button"
                    className="btn btn-secondary"
                    data-testid="approval-respond"
                    disabled={done || !note}
                    onClick={() => decide(a.tool_call_id, { decision: "respond", answer: note })}
                  >
                    {t("chat.approval.respond")}
                  </button>
                </div>
              </>
            ) : (
              i === 0 && (
                <button type="button" className="btn btn-primary" data-testid="approval-ask-parent" onClick={() => void askParent()}>
                  {t("chat.approval.ask")}
                </button>
              )
            )}
          </div>
        );
      })}
      {error && (
        <p className="field-error" role="alert">
          {error}
        </p>
      )}
      {parent && !unlocked && (
        <PinDialog
          profile={parent}
          onUnlocked={() => {
            setUnlocked(true);
            setParent(null);
          }}
          onCancel={() => setParent(null)}
        />
      )}
    </div>
  );
}
