-- What the companion remembers about each child (issue 19 point 3): short
-- facts (likes, finds hard, is working towards), said by the child
-- ("记住我喜欢恐龙"), drawn from a conversation, or written by a parent.
-- Deleted with the child (ON DELETE CASCADE). Local only: not in the sync
-- outbox (see crates/store/README.md).
CREATE TABLE memories (
    id          TEXT PRIMARY KEY,                 -- UUIDv7
    profile_id  TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('likes', 'finds_hard', 'working_towards', 'other')),
    text        TEXT NOT NULL CHECK (length(trim(text)) > 0 AND length(text) <= 500),
    source      TEXT NOT NULL CHECK (source IN ('explicit', 'conversation', 'parent')),
    thread_id   TEXT,                             -- the conversation it came from, if any
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX memories_profile ON memories(profile_id, updated_at);
