-- How far each chat thread has been read for memories (issue 19 point 3):
-- the last message seq a model's extraction covered, so a conversation is
-- read once and a failed extraction is tried again. Local to the device
-- (another device reads its own conversations); gone with the thread.
CREATE TABLE memory_extractions (
    thread_id TEXT PRIMARY KEY REFERENCES threads(id) ON DELETE CASCADE,
    through_seq INTEGER NOT NULL,
    extracted_at TEXT NOT NULL
);
