-- A parent's learning goals per child (每天背一首新诗, 每周复习三次): the
-- orchestrator's plan turns them, with the due reviews and unfinished
-- practice, into today's tasks. One goal of each kind per child.
CREATE TABLE plan_goals (
    id           TEXT PRIMARY KEY,                       -- UUIDv7
    profile_id   TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    kind         TEXT NOT NULL CHECK (kind IN ('new_per_day', 'reviews_per_week')),
    target       INTEGER NOT NULL CHECK (target BETWEEN 1 AND 20),
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    UNIQUE (profile_id, kind)
);
