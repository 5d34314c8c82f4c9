-- Recitation: every attempt, the error patterns a child repeats, the FSRS
-- review schedule per child and material, and daily/weekly reports.
-- Owned by crates/recite (queries run through Store::with_conn).

CREATE TABLE recite_attempts (
    id              TEXT PRIMARY KEY,                 -- UUIDv7
    profile_id      TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    material_id     TEXT NOT NULL REFERENCES materials(id) ON DELETE CASCADE,
    mode            TEXT NOT NULL CHECK (mode IN ('voice', 'text')),
    lang            TEXT NOT NULL CHECK (lang IN ('zh', 'en')),
    transcript      TEXT NOT NULL,
    units           INTEGER NOT NULL CHECK (units > 0),
    correct         INTEGER NOT NULL CHECK (correct >= 0 AND correct <= units),
    accuracy        REAL NOT NULL CHECK (accuracy BETWEEN 0 AND 100),
    pass_threshold  REAL NOT NULL,
    passed          INTEGER NOT NULL CHECK (passed IN (0, 1)),
    first_pass      INTEGER NOT NULL DEFAULT 0 CHECK (first_pass IN (0, 1)), -- first ever pass of this material
    errors          TEXT NOT NULL DEFAULT '[]',       -- JSON array of typed errors
    error_count     INTEGER NOT NULL DEFAULT 0,
    duration_ms     INTEGER NOT NULL CHECK (duration_ms >= 0),  -- time spent reciting
    duration_estimated INTEGER NOT NULL DEFAULT 0 CHECK (duration_estimated IN (0, 1)),
    check_us        INTEGER NOT NULL DEFAULT 0,       -- time the check took
    session_id      TEXT NOT NULL,                    -- attempts at one material in one sitting
    attempt_no      INTEGER NOT NULL CHECK (attempt_no >= 1), -- within the session
    purpose         TEXT NOT NULL CHECK (purpose IN ('learn', 'review')),
    rating          INTEGER CHECK (rating IS NULL OR rating BETWEEN 1 AND 4), -- FSRS rating applied, if any
    interval_days   INTEGER,                          -- review interval scheduled by this attempt, if any
    created_at      TEXT NOT NULL                     -- RFC 3339 UTC
);
CREATE INDEX recite_attempts_profile_created ON recite_attempts(profile_id, created_at);
CREATE INDEX recite_attempts_profile_material ON recite_attempts(profile_id, material_id, created_at);

CREATE TABLE recite_error_patterns (
    id               TEXT PRIMARY KEY,                -- UUIDv7
    profile_id       TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    material_id      TEXT NOT NULL REFERENCES materials(id) ON DELETE CASCADE,
    error_type       TEXT NOT NULL CHECK (error_type IN ('omission', 'insertion', 'substitution', 'order')),
    kind             TEXT NOT NULL,
    line             INTEGER NOT NULL,
    pattern_key      TEXT NOT NULL,                   -- normalized key: type|line|expected|actual-by-sound
    core_text        TEXT NOT NULL,                   -- what the pattern is about, for substring dedup
    expected         TEXT NOT NULL,
    actual           TEXT NOT NULL,
    occurrence_count INTEGER NOT NULL DEFAULT 1 CHECK (occurrence_count >= 1),
    first_seen_at    TEXT NOT NULL,
    last_seen_at     TEXT NOT NULL,
    last_attempt_id  TEXT,
    tip_zh           TEXT,                            -- cached memory tip
    tip_en           TEXT,
    tip_source       TEXT,                            -- 'template', 'llm', …
    tip_at           TEXT,
    UNIQUE (profile_id, material_id, pattern_key),
    CHECK ((tip_zh IS NULL) = (tip_en IS NULL))
);
CREATE INDEX recite_error_patterns_profile_count ON recite_error_patterns(profile_id, occurrence_count);

CREATE TABLE recite_reviews (
    profile_id      TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    material_id     TEXT NOT NULL REFERENCES materials(id) ON DELETE CASCADE,
    status          TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'paused')),
    stability       REAL NOT NULL,                    -- FSRS memory state
    difficulty      REAL NOT NULL,
    reps            INTEGER NOT NULL DEFAULT 1,
    lapses          INTEGER NOT NULL DEFAULT 0,
    last_rating     INTEGER NOT NULL CHECK (last_rating BETWEEN 1 AND 4),
    last_review_at  TEXT NOT NULL,
    next_review_at  TEXT NOT NULL,
    interval_days   INTEGER NOT NULL,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    PRIMARY KEY (profile_id, material_id)
);
CREATE INDEX recite_reviews_due ON recite_reviews(profile_id, status, next_review_at);

CREATE TABLE recite_reports (
    id            TEXT PRIMARY KEY,                   -- UUIDv7
    profile_id    TEXT NOT NULL REFERENCES profiles(id) ON DELETE CASCADE,
    report_type   TEXT NOT NULL CHECK (report_type IN ('daily', 'weekly')),
    report_date   TEXT NOT NULL,                      -- local date (weekly: the Monday)
    time_zone     TEXT NOT NULL,
    period_start  TEXT NOT NULL,                      -- RFC 3339 UTC, inclusive
    period_end    TEXT NOT NULL,                      -- RFC 3339 UTC, exclusive
    data          TEXT NOT NULL,                      -- JSON report
    created_at    TEXT NOT NULL,
    updated_at    TEXT NOT NULL,
    UNIQUE (profile_id, report_type, report_date)
);
