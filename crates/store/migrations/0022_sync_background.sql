-- The background sync loop's last round (JSON: synced, idle or failed, when,
-- what went and came, failures in a row, the wait before the next try), so
-- a status line in any process — `deskmate sync status` while the window or
-- `deskmate serve` runs the loop — can say how syncing goes.
ALTER TABLE sync_state ADD COLUMN background TEXT;
