-- Recitation practice sessions: the state machine of crates/orchestrator,
-- stored after every step so a practice survives an app restart.
CREATE TABLE practice_sessions (
    id           TEXT PRIMARY KEY,                       -- UUIDv7, also the recitation session id
    profile_id   TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    material_id  TEXT NOT NULL REFERENCES materials(id) ON DELETE CASCADE,
    mode         TEXT NOT NULL CHECK (mode IN ('voice', 'text')),
    practice     TEXT NOT NULL,                          -- JSON of orchestrator::Practice
    last_result  TEXT,                                   -- JSON of the latest verdict shown
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
CREATE INDEX practice_sessions_profile ON practice_sessions(profile_id, updated_at);
