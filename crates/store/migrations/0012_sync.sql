-- Sync with the family's server (crates/sync). Off until a parent turns it
-- on. While on, triggers write one outbox entry per change of a synced
-- record IN THE SAME TRANSACTION as the change, whoever makes it, and stamp
-- it with the device's hybrid logical clock. Changes applied from the
-- server set `applying`, so they are not sent back.
-- Synced: profiles (not their PIN), custom materials, recitation attempts.

CREATE TABLE sync_state (
    id            INTEGER PRIMARY KEY CHECK (id = 1),
    enabled       INTEGER NOT NULL DEFAULT 0 CHECK (enabled IN (0, 1)),
    applying      INTEGER NOT NULL DEFAULT 0 CHECK (applying IN (0, 1)),
    transcripts   INTEGER NOT NULL DEFAULT 0 CHECK (transcripts IN (0, 1)), -- parent lets transcripts sync
    server_url    TEXT,
    vault_id      TEXT,                       -- names the keyring entry holding the tokens
    family_id     TEXT,
    device_id     TEXT,
    node          TEXT NOT NULL,              -- this device's clock id
    hlc_ms        INTEGER NOT NULL DEFAULT 0, -- hybrid logical clock: wall ms…
    hlc_counter   INTEGER NOT NULL DEFAULT 0, -- …and counter
    cursor        INTEGER NOT NULL DEFAULT 0, -- server seq pulled so far
    last_sync_at  TEXT,
    last_error    TEXT
);
INSERT INTO sync_state (id, node) VALUES (1, lower(hex(randomblob(4))));

CREATE TABLE sync_outbox (
    id         INTEGER PRIMARY KEY AUTOINCREMENT, -- push order
    change_id  TEXT,                              -- UUIDv7, fixed before the first send
    kind       TEXT NOT NULL CHECK (kind IN ('attempt', 'profile', 'material')),
    record_id  TEXT NOT NULL,
    deleted    INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
    hlc        TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- The clock of the newest change known per mutable record (local or pulled):
-- a pulled change older than it loses.
CREATE TABLE sync_records (
    kind      TEXT NOT NULL,
    record_id TEXT NOT NULL,
    hlc       TEXT NOT NULL,
    PRIMARY KEY (kind, record_id)
);

-- One tick of the clock: max(last, now) with a counter for ties.
CREATE VIEW sync_tick AS
SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER) AS now_ms;

CREATE TRIGGER sync_attempt_insert AFTER INSERT ON recite_attempts
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, hlc)
    SELECT 'attempt', NEW.id, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
END;

CREATE TRIGGER sync_profile_insert AFTER INSERT ON profiles
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, hlc)
    SELECT 'profile', NEW.id, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    INSERT OR REPLACE INTO sync_records (kind, record_id, hlc)
    SELECT 'profile', NEW.id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

-- Only what syncs: a wrong-PIN counter or lock is this device's business.
CREATE TRIGGER sync_profile_update AFTER UPDATE OF kind, name, grade, locale, time_zone ON profiles
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, hlc)
    SELECT 'profile', NEW.id, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    INSERT OR REPLACE INTO sync_records (kind, record_id, hlc)
    SELECT 'profile', NEW.id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_profile_delete AFTER DELETE ON profiles
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'profile', OLD.id, 1, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    INSERT OR REPLACE INTO sync_records (kind, record_id, hlc)
    SELECT 'profile', OLD.id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_material_insert AFTER INSERT ON materials
WHEN NEW.source = 'custom' AND (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, hlc)
    SELECT 'material', NEW.id, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    INSERT OR REPLACE INTO sync_records (kind, record_id, hlc)
    SELECT 'material', NEW.id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_material_update AFTER UPDATE ON materials
WHEN NEW.source = 'custom' AND (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, hlc)
    SELECT 'material', NEW.id, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    INSERT OR REPLACE INTO sync_records (kind, record_id, hlc)
    SELECT 'material', NEW.id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_material_delete AFTER DELETE ON materials
WHEN OLD.source = 'custom' AND (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'material', OLD.id, 1, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    INSERT OR REPLACE INTO sync_records (kind, record_id, hlc)
    SELECT 'material', OLD.id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;
