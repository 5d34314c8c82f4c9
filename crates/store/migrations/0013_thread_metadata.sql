-- Free-form metadata a front end keeps on a chat thread (the local HTTP API's
-- LangGraph-compatible threads: `metadata` on create, patch and search), a
-- JSON object. (0012 is taken by the sync work on another branch.)
ALTER TABLE threads ADD COLUMN metadata TEXT NOT NULL DEFAULT '{}';
