-- Routines parents design (issue 21): the graph as JSON (the protocol
-- crate's `Routine`, validated by the orchestrator before it is saved), and
-- each run's state saved after every node so a run resumes after a crash.
-- Local only for now: not in the sync outbox (see crates/store/README.md).
CREATE TABLE routines (
    name        TEXT PRIMARY KEY CHECK (length(trim(name)) > 0),
    spec        TEXT NOT NULL,                   -- JSON
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE TABLE routine_runs (
    id          TEXT PRIMARY KEY,                -- UUIDv7
    routine     TEXT NOT NULL REFERENCES routines(name) ON DELETE CASCADE ON UPDATE CASCADE,
    profile_id  TEXT REFERENCES profiles(id) ON DELETE CASCADE,  -- the child it runs for
    status      TEXT NOT NULL CHECK (status IN ('running', 'waiting', 'finished', 'failed')),
    state       TEXT NOT NULL,                   -- JSON: the orchestrator's RunState
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX routine_runs_routine ON routine_runs(routine, created_at);
