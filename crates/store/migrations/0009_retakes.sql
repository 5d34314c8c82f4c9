-- Re-takes of one unclear line (issue 13): when a verdict re-asks a line,
-- the child says that line alone and the take is merged into the same
-- attempt (crates/recite/src/retake.rs). The attempt's row is updated in
-- place; what it said before is kept here, so nothing recorded is lost.

-- The review card as it was before this attempt changed it, so a re-take
-- that changes the attempt's rating can grade the schedule again:
-- JSON {"card": null} (there was none) or {"card": {...}}; NULL when the
-- attempt changed nothing or was recorded before this column existed.
ALTER TABLE recite_attempts ADD COLUMN schedule_before TEXT;

CREATE TABLE recite_retakes (
    id              TEXT PRIMARY KEY,                 -- UUIDv7
    attempt_id      TEXT NOT NULL REFERENCES recite_attempts(id) ON DELETE CASCADE,
    line            INTEGER NOT NULL CHECK (line >= 1), -- the line said again (1-based)
    transcript      TEXT NOT NULL,                    -- what was heard of it
    errors_before   TEXT NOT NULL,                    -- JSON: the attempt's errors before the merge
    correct_before  INTEGER NOT NULL,
    accuracy_before REAL NOT NULL,
    passed_before   INTEGER NOT NULL CHECK (passed_before IN (0, 1)),
    accuracy_after  REAL NOT NULL,
    created_at      TEXT NOT NULL,                    -- RFC 3339 UTC
    UNIQUE (attempt_id, line)                         -- one re-take per line
);
