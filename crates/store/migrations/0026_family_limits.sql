-- Tools for parents (issue 20): a child's daily limits and quiet hours are
-- a family setting (`limits.daily`, per profile, synced like the other
-- family settings), and what the parent is told — a limit reached, a
-- request in quiet hours, a companion's reply replaced by the safety
-- check — is kept here, on this device, until a parent has read it.
INSERT INTO sync_family_settings (key, what) VALUES
    ('limits.daily', 'a child''s daily limits (minutes of chat, model calls, cost) and quiet hours');

CREATE TABLE parent_notices (
    id          TEXT PRIMARY KEY,                 -- UUIDv7
    profile_id  TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE, -- the child it is about
    kind        TEXT NOT NULL CHECK (kind IN ('limit_reached', 'quiet_hours', 'reply_replaced')), -- what happened
    day         TEXT NOT NULL,                    -- the child's local date (YYYY-MM-DD) it happened on
    detail      TEXT NOT NULL,                    -- JSON: which limit and the day's figure, or why a reply was replaced
    thread_id   TEXT REFERENCES threads(id) ON DELETE CASCADE, -- the conversation, for a replaced reply
    created_at  TEXT NOT NULL,                    -- when (UTC)
    read_at     TEXT                              -- when a parent marked it read
);
CREATE INDEX parent_notices_profile ON parent_notices(profile_id, created_at);
-- A limit or quiet hours is noted once per child, kind and day.
CREATE UNIQUE INDEX parent_notices_once_a_day ON parent_notices(profile_id, kind, day)
    WHERE kind IN ('limit_reached', 'quiet_hours');

CREATE TABLE replaced_replies (
    message_id  TEXT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE, -- the stored reply, now the safe one
    thread_id   TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE, -- its conversation
    profile_id  TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE, -- the child it was meant for
    original    TEXT NOT NULL,                    -- the reply the model wrote, kept for the parent only
    reasons     TEXT NOT NULL,                    -- JSON array: the rules or moderation categories it broke
    created_at  TEXT NOT NULL                     -- when it was replaced (UTC)
);
CREATE INDEX replaced_replies_thread ON replaced_replies(thread_id);
