-- Human in the loop: a tool call the profile's settings say needs a
-- parent's approval waits here; the run pauses (status `interrupted`, so it
-- survives the app being closed or killed) until every waiting call of it
-- has a decision, then continues from exactly there.
CREATE TABLE approvals (
    tool_call_id      TEXT NOT NULL,                   -- the model's call id (unique within its thread)
    thread_id         TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    run_id            TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
    tool              TEXT NOT NULL,
    arguments         TEXT NOT NULL,
    requested_at      TEXT NOT NULL,
    decision          TEXT CHECK (decision IN ('approve', 'edit', 'reject', 'respond')),
    -- edit: the arguments to run with; reject: the reason; respond: the answer given in place of the tool
    detail            TEXT,
    decided_at        TEXT,
    applied_at        TEXT,
    PRIMARY KEY (thread_id, tool_call_id),
    FOREIGN KEY (thread_id, tool_call_id) REFERENCES tool_calls(thread_id, id) ON DELETE CASCADE
);
CREATE INDEX approvals_waiting ON approvals(run_id) WHERE applied_at IS NULL;
