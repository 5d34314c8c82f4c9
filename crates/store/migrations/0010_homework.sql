-- The homework scene (issue 16): the mistakes a vision model found on a
-- child's worksheet, kept per child until redone — today's plan lists the
-- ones not redone yet — and the scene's walk through the mistakes (JSON of
-- orchestrator::homework::Walk), stored after every step.
CREATE TABLE homework_mistakes (
    id             TEXT PRIMARY KEY,                     -- UUIDv7
    profile_id     TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    created_at     TEXT NOT NULL,
    subject        TEXT NOT NULL,
    question       TEXT NOT NULL CHECK (length(question) > 0),
    child_answer   TEXT NOT NULL,
    correct_answer TEXT NOT NULL,
    hint           TEXT NOT NULL,
    explanation    TEXT NOT NULL,
    redone_at      TEXT                                  -- when the child got it right again
);
CREATE INDEX homework_mistakes_open ON homework_mistakes(profile_id, redone_at, created_at);
CREATE TABLE homework_walks (
    profile_id   TEXT PRIMARY KEY REFERENCES profiles(id) ON DELETE CASCADE,
    walk         TEXT NOT NULL,
    updated_at   TEXT NOT NULL
);
