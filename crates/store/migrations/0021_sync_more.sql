-- More of a family's records sync (issue 17 point 2): parents' goals,
-- family settings, reports, practice sessions, error patterns with their
-- tips, chat threads with their runs, messages and tool calls, children's
-- memories and parents' routines. As in 0012, a trigger writes the outbox
-- entry IN THE SAME TRANSACTION as the change, silent while sync is off and
-- while pulled changes are applied.
--
-- A record is named in the outbox and in sync_records by its key: its `id`
-- where the table has one that is the record's identity, else the JSON array
-- of its natural key (`json_array(profile_id, kind)` for a goal: two parents
-- setting the same child's goal on two devices edit one record, whatever id
-- each device gave its row). The sync client turns such a key into a UUIDv5
-- for the server.
--
-- A trigger replaces a record's clock in sync_records with DELETE and
-- INSERT, not INSERT OR REPLACE: when an upsert fires it (a setting or a
-- goal set again), the upsert's conflict handling overrides the trigger's
-- and the REPLACE would fail as a duplicate.
--
-- Appended only: messages (like attempts). Everything else is mutable,
-- last writer by hybrid logical clock wins. Deleted by a parent and sent:
-- goals, family settings, threads (their runs, messages and tool calls go
-- with them on every device), memories, routines. Routine runs, review
-- state (recomputed from the merged attempts), thread state, model calls,
-- spans, scenes, homework and knowledge stay on the device.

-- Family settings: a parent's decisions about how a child learns and what
-- the companion may do. Everything else in `settings` configures this
-- device (its model endpoint, speech service, MCP servers, trace collector,
-- window language, price table, router time limit) and stays here; API keys
-- are in the keyring, never in `settings`.
CREATE TABLE sync_family_settings (
    key  TEXT PRIMARY KEY,
    what TEXT NOT NULL
);
INSERT INTO sync_family_settings (key, what) VALUES
    ('recite.pass_threshold', 'a child''s pass mark'),
    ('homework.answers', 'whether the homework scene may show a child the answer'),
    ('chat.context', 'a child''s chat context: model, prompt, tools'),
    ('chat.subagents', 'whether the companion may hand work to subagents');

-- The outbox's CHECK lists the kinds: rebuild it. The triggers of 0012 name
-- the table, so they are dropped first and made again as they were.
DROP TRIGGER sync_attempt_insert;
DROP TRIGGER sync_profile_insert;
DROP TRIGGER sync_profile_update;
DROP TRIGGER sync_profile_delete;
DROP TRIGGER sync_material_insert;
DROP TRIGGER sync_material_update;
DROP TRIGGER sync_material_delete;

CREATE TABLE sync_outbox_next (
    id         INTEGER PRIMARY KEY AUTOINCREMENT, -- push order
    change_id  TEXT,                              -- UUIDv7, fixed before the first send
    kind       TEXT NOT NULL CHECK (kind IN ('attempt', 'profile', 'material', 'goal', 'setting', 'report', 'error_pattern', 'practice_session', 'thread', 'run', 'message', 'tool_call', 'memory', 'routine')),
    record_id  TEXT NOT NULL,                     -- the id, or the JSON array of the natural key
    deleted    INTEGER NOT NULL DEFAULT 0 CHECK (deleted IN (0, 1)),
    hlc        TEXT NOT NULL,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
INSERT INTO sync_outbox_next (id, change_id, kind, record_id, deleted, hlc, created_at)
SELECT id, change_id, kind, record_id, deleted, hlc, created_at FROM sync_outbox;
DROP TABLE sync_outbox;
ALTER TABLE sync_outbox_next RENAME TO sync_outbox;

-- The triggers of 0012, unchanged.
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

-- The new kinds.

CREATE TRIGGER sync_goal_insert AFTER INSERT ON plan_goals
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'goal', json_array(NEW.profile_id, NEW.kind), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'goal' AND record_id = json_array(NEW.profile_id, NEW.kind);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'goal', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_goal_update AFTER UPDATE ON plan_goals
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'goal', json_array(NEW.profile_id, NEW.kind), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'goal' AND record_id = json_array(NEW.profile_id, NEW.kind);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'goal', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_goal_delete AFTER DELETE ON plan_goals
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'goal', json_array(OLD.profile_id, OLD.kind), 1, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'goal' AND record_id = json_array(OLD.profile_id, OLD.kind);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'goal', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_setting_insert AFTER INSERT ON settings
WHEN NEW.key IN (SELECT key FROM sync_family_settings) AND (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'setting', json_array(NEW.scope, NEW.key), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'setting' AND record_id = json_array(NEW.scope, NEW.key);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'setting', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_setting_update AFTER UPDATE ON settings
WHEN NEW.key IN (SELECT key FROM sync_family_settings) AND (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'setting', json_array(NEW.scope, NEW.key), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'setting' AND record_id = json_array(NEW.scope, NEW.key);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'setting', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_setting_delete AFTER DELETE ON settings
WHEN OLD.key IN (SELECT key FROM sync_family_settings) AND (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'setting', json_array(OLD.scope, OLD.key), 1, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'setting' AND record_id = json_array(OLD.scope, OLD.key);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'setting', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_report_insert AFTER INSERT ON recite_reports
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'report', json_array(NEW.profile_id, NEW.report_type, NEW.report_date), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'report' AND record_id = json_array(NEW.profile_id, NEW.report_type, NEW.report_date);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'report', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_report_update AFTER UPDATE ON recite_reports
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'report', json_array(NEW.profile_id, NEW.report_type, NEW.report_date), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'report' AND record_id = json_array(NEW.profile_id, NEW.report_type, NEW.report_date);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'report', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_error_pattern_insert AFTER INSERT ON recite_error_patterns
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'error_pattern', json_array(NEW.profile_id, NEW.material_id, NEW.pattern_key), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'error_pattern' AND record_id = json_array(NEW.profile_id, NEW.material_id, NEW.pattern_key);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'error_pattern', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_error_pattern_update AFTER UPDATE ON recite_error_patterns
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'error_pattern', json_array(NEW.profile_id, NEW.material_id, NEW.pattern_key), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'error_pattern' AND record_id = json_array(NEW.profile_id, NEW.material_id, NEW.pattern_key);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'error_pattern', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_practice_session_insert AFTER INSERT ON practice_sessions
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'practice_session', NEW.id, 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'practice_session' AND record_id = NEW.id;
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'practice_session', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_practice_session_update AFTER UPDATE ON practice_sessions
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'practice_session', NEW.id, 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'practice_session' AND record_id = NEW.id;
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'practice_session', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_thread_insert AFTER INSERT ON threads
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'thread', NEW.id, 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'thread' AND record_id = NEW.id;
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'thread', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_thread_update AFTER UPDATE OF title, metadata, profile_id ON threads
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'thread', NEW.id, 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'thread' AND record_id = NEW.id;
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'thread', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_thread_delete AFTER DELETE ON threads
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'thread', OLD.id, 1, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'thread' AND record_id = OLD.id;
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'thread', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_run_insert AFTER INSERT ON runs
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'run', NEW.id, 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'run' AND record_id = NEW.id;
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'run', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_run_update AFTER UPDATE ON runs
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'run', NEW.id, 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'run' AND record_id = NEW.id;
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'run', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_message_insert AFTER INSERT ON messages
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'message', NEW.id, 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
END;

CREATE TRIGGER sync_tool_call_insert AFTER INSERT ON tool_calls
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'tool_call', json_array(NEW.thread_id, NEW.id), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'tool_call' AND record_id = json_array(NEW.thread_id, NEW.id);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'tool_call', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_tool_call_update AFTER UPDATE ON tool_calls
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'tool_call', json_array(NEW.thread_id, NEW.id), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'tool_call' AND record_id = json_array(NEW.thread_id, NEW.id);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'tool_call', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_memory_insert AFTER INSERT ON memories
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'memory', NEW.id, 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'memory' AND record_id = NEW.id;
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'memory', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_memory_update AFTER UPDATE ON memories
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'memory', NEW.id, 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'memory' AND record_id = NEW.id;
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'memory', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_memory_delete AFTER DELETE ON memories
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'memory', OLD.id, 1, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'memory' AND record_id = OLD.id;
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'memory', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_routine_insert AFTER INSERT ON routines
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'routine', json_array(NEW.name), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'routine' AND record_id = json_array(NEW.name);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'routine', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_routine_update AFTER UPDATE ON routines
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'routine', json_array(NEW.name), 0, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'routine' AND record_id = json_array(NEW.name);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'routine', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

CREATE TRIGGER sync_routine_delete AFTER DELETE ON routines
WHEN (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'routine', json_array(OLD.name), 1, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'routine' AND record_id = json_array(OLD.name);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'routine', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;

-- A routine renamed: the old name is gone for the other devices.
CREATE TRIGGER sync_routine_rename AFTER UPDATE OF name ON routines
WHEN OLD.name != NEW.name AND (SELECT enabled = 1 AND applying = 0 FROM sync_state WHERE id = 1)
BEGIN
    UPDATE sync_state SET
        hlc_counter = CASE WHEN (SELECT now_ms FROM sync_tick) > hlc_ms THEN 0 ELSE hlc_counter + 1 END,
        hlc_ms = max(hlc_ms, (SELECT now_ms FROM sync_tick))
    WHERE id = 1;
    INSERT INTO sync_outbox (kind, record_id, deleted, hlc)
    SELECT 'routine', json_array(OLD.name), 1, printf('%013d-%05d-%s', hlc_ms, hlc_counter, node) FROM sync_state WHERE id = 1;
    DELETE FROM sync_records WHERE kind = 'routine' AND record_id = json_array(OLD.name);
    INSERT INTO sync_records (kind, record_id, hlc)
    SELECT 'routine', record_id, hlc FROM sync_outbox WHERE id = last_insert_rowid();
END;
