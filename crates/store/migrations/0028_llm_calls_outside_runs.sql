-- Model calls made outside a companion's run (issue 20: usage counts every
-- call a child causes): the entry's router and homework check, the memory
-- tips of an attempt, the memory sweep. They have no thread; the child they
-- were made for and what for are kept instead, so usage and the daily
-- limits count them with the conversations' calls.
ALTER TABLE llm_calls ADD COLUMN profile_id TEXT REFERENCES profiles(id) ON DELETE CASCADE; -- the child a call outside a conversation was made for
ALTER TABLE llm_calls ADD COLUMN purpose TEXT; -- what a call outside a conversation was for: route, homework, tips, memories
CREATE INDEX llm_calls_profile ON llm_calls(profile_id, created_at) WHERE profile_id IS NOT NULL;

-- Routines (issue 21) tell the parent things too: a routine's note
-- (`notify_parent`) and a step's reply replaced by the child-safety check.
-- SQLite cannot widen a CHECK in place, so the table is made again.
CREATE TABLE parent_notices_widened (
    id          TEXT PRIMARY KEY,                 -- UUIDv7
    profile_id  TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE, -- the child it is about
    kind        TEXT NOT NULL CHECK (kind IN ('limit_reached', 'quiet_hours', 'reply_replaced', 'routine_note')), -- what happened
    day         TEXT NOT NULL,                    -- the child's local date (YYYY-MM-DD) it happened on
    detail      TEXT NOT NULL,                    -- JSON: which limit and the day's figure, why a reply was replaced, or a routine's note
    thread_id   TEXT REFERENCES threads(id) ON DELETE CASCADE, -- the conversation, for a replaced reply
    created_at  TEXT NOT NULL,                    -- when (UTC)
    read_at     TEXT                              -- when a parent marked it read
);
INSERT INTO parent_notices_widened (id, profile_id, kind, day, detail, thread_id, created_at, read_at)
    SELECT id, profile_id, kind, day, detail, thread_id, created_at, read_at FROM parent_notices;
DROP TABLE parent_notices;
ALTER TABLE parent_notices_widened RENAME TO parent_notices;
CREATE INDEX parent_notices_profile ON parent_notices(profile_id, created_at);
-- A limit or quiet hours is noted once per child, kind and day.
CREATE UNIQUE INDEX parent_notices_once_a_day ON parent_notices(profile_id, kind, day)
    WHERE kind IN ('limit_reached', 'quiet_hours');
