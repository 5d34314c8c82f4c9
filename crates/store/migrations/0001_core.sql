-- Core tables: who uses Deskmate, what they practise, and app settings.
CREATE TABLE profiles (
    id               TEXT PRIMARY KEY,            -- UUIDv7
    kind             TEXT NOT NULL CHECK (kind IN ('parent', 'child')),
    name             TEXT NOT NULL,
    name_key         TEXT NOT NULL UNIQUE,        -- case-folded, trimmed name: no duplicates
    grade            INTEGER CHECK (grade IS NULL OR grade BETWEEN 1 AND 12),
    locale           TEXT NOT NULL DEFAULT 'zh-CN',
    time_zone        TEXT NOT NULL DEFAULT 'Asia/Shanghai',
    pin_hash         TEXT,                        -- argon2id PHC string, parents only
    failed_pin_tries INTEGER NOT NULL DEFAULT 0,
    locked_until     TEXT,                        -- RFC 3339 UTC
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    CHECK (kind = 'parent' OR pin_hash IS NULL)
);

CREATE TABLE materials (
    id          TEXT PRIMARY KEY,                 -- UUIDv5 of the slug (built-in) or UUIDv7 (custom)
    slug        TEXT UNIQUE,                      -- stable key of a built-in material
    source      TEXT NOT NULL CHECK (source IN ('builtin', 'custom')),
    lang        TEXT NOT NULL CHECK (lang IN ('zh', 'en')),
    title       TEXT NOT NULL,
    author      TEXT,
    dynasty     TEXT,
    grade       INTEGER CHECK (grade IS NULL OR grade BETWEEN 1 AND 12),
    level       INTEGER,
    body        TEXT NOT NULL CHECK (length(body) > 0),
    created_by  TEXT REFERENCES profiles(id) ON DELETE SET NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX materials_lang_grade ON materials(lang, grade);

CREATE TABLE settings (
    scope       TEXT NOT NULL DEFAULT '',         -- '' = app-wide, else a profile id
    key         TEXT NOT NULL,
    value       TEXT NOT NULL,                    -- JSON
    updated_at  TEXT NOT NULL,
    PRIMARY KEY (scope, key)
);
