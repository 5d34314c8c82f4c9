-- The orchestrator's session per child: the active scene, a switch waiting
-- for an answer, the scene left to come back to (JSON of
-- orchestrator::guardrails::Session), and every decision taken on what the
-- child said — a trace of the request with the time of each stage — so it
-- can be shown and replayed against the current rules.
CREATE TABLE scene_sessions (
    profile_id   TEXT PRIMARY KEY REFERENCES profiles(id) ON DELETE CASCADE,
    session      TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE TABLE scene_decisions (
    id           TEXT PRIMARY KEY,                       -- UUIDv7, the request's trace id
    profile_id   TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    input        TEXT NOT NULL,
    scene_before TEXT NOT NULL,
    session_before TEXT NOT NULL,                        -- JSON of the session the decision was taken in (for replay)
    intent       TEXT NOT NULL,
    confidence   TEXT NOT NULL,
    decision     TEXT NOT NULL,                          -- JSON of orchestrator::guardrails::Decision
    reason       TEXT NOT NULL,
    scene_after  TEXT NOT NULL,
    said         TEXT NOT NULL,                          -- what the child was told (zh)
    timings      TEXT NOT NULL,                          -- JSON: microseconds per stage (route, decide, act, total)
    created_at   TEXT NOT NULL
);
CREATE INDEX scene_decisions_profile ON scene_decisions(profile_id, created_at);
