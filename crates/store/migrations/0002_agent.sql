-- The agent runtime: chat threads, their messages, runs, tool calls, thread
-- state (todos) and every model call with its usage and cost. Rows are
-- written as things happen, so a crash loses nothing already shown.
CREATE TABLE threads (
    id          TEXT PRIMARY KEY,                 -- UUIDv7
    profile_id  TEXT REFERENCES profiles(id) ON DELETE SET NULL,
    title       TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
CREATE INDEX threads_profile ON threads(profile_id, updated_at);

CREATE TABLE runs (
    id           TEXT PRIMARY KEY,                -- UUIDv7
    thread_id    TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    status       TEXT NOT NULL CHECK (status IN ('running', 'completed', 'cancelled', 'error', 'step_limit', 'interrupted')),
    model        TEXT NOT NULL,                   -- provider:model
    steps        INTEGER NOT NULL DEFAULT 0,
    error        TEXT,
    started_at   TEXT NOT NULL,
    finished_at  TEXT
);
CREATE INDEX runs_thread ON runs(thread_id, started_at);
CREATE INDEX runs_running ON runs(status) WHERE status = 'running';

CREATE TABLE messages (
    id            TEXT PRIMARY KEY,               -- UUIDv7
    thread_id     TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    run_id        TEXT REFERENCES runs(id) ON DELETE SET NULL,
    seq           INTEGER NOT NULL,               -- order within the thread, from 1
    role          TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content       TEXT NOT NULL,                  -- JSON array of content parts
    tool_call_id  TEXT,                           -- role = 'tool': the call answered
    is_error      INTEGER NOT NULL DEFAULT 0,
    created_at    TEXT NOT NULL,
    UNIQUE (thread_id, seq)
);

CREATE TABLE tool_calls (
    id           TEXT NOT NULL,                   -- the model's call id
    thread_id    TEXT NOT NULL REFERENCES threads(id) ON DELETE CASCADE,
    run_id       TEXT REFERENCES runs(id) ON DELETE SET NULL,
    message_id   TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,  -- the assistant message asking for it
    position     INTEGER NOT NULL,                -- order within that message
    name         TEXT NOT NULL,
    arguments    TEXT NOT NULL,                   -- raw JSON text from the model
    status       TEXT NOT NULL CHECK (status IN ('pending', 'completed', 'error', 'interrupted')),
    result       TEXT,
    started_at   TEXT NOT NULL,
    finished_at  TEXT,
    PRIMARY KEY (thread_id, id)
);
CREATE INDEX tool_calls_message ON tool_calls(message_id, position);

CREATE TABLE thread_state (
    thread_id   TEXT PRIMARY KEY REFERENCES threads(id) ON DELETE CASCADE,
    state       TEXT NOT NULL,                    -- JSON, e.g. {"todos": [...]}
    updated_at  TEXT NOT NULL
);

CREATE TABLE llm_calls (
    id                   TEXT PRIMARY KEY,        -- UUIDv7
    thread_id            TEXT REFERENCES threads(id) ON DELETE CASCADE,
    run_id               TEXT REFERENCES runs(id) ON DELETE SET NULL,
    model                TEXT NOT NULL,           -- provider:model
    status               TEXT NOT NULL CHECK (status IN ('completed', 'error', 'cancelled')),
    input_tokens         INTEGER NOT NULL DEFAULT 0,
    output_tokens        INTEGER NOT NULL DEFAULT 0,
    cached_input_tokens  INTEGER NOT NULL DEFAULT 0,
    cost_usd             REAL,                    -- NULL when the model's price is unknown
    duration_ms          INTEGER NOT NULL,
    error                TEXT,
    created_at           TEXT NOT NULL
);
CREATE INDEX llm_calls_run ON llm_calls(run_id);
