-- A device whose clock is wrong (a tablet set a day ahead) would stamp its
-- edits in the future and win every conflict until the others caught up.
-- The sync client learns how far this device's clock is from the server's
-- (the HTTP Date of every answer) and keeps the difference here; the
-- clock the triggers stamp with is the device's clock plus it.
ALTER TABLE sync_state ADD COLUMN clock_offset_ms INTEGER NOT NULL DEFAULT 0;

DROP VIEW sync_tick;
CREATE VIEW sync_tick AS
SELECT CAST(unixepoch('subsec') * 1000 AS INTEGER)
       + coalesce((SELECT clock_offset_ms FROM sync_state WHERE id = 1), 0) AS now_ms;
