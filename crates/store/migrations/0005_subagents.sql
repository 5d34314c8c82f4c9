-- Subagent runs and conversation summaries.
--
-- Subagent runs: a run started by a lead's `task` call is stored as a child
-- of the run that made the call, with the call's id and the subagent's name.
-- Its messages and tool calls are the thread's rows with the child's run_id;
-- the lead's history leaves them out.
ALTER TABLE runs ADD COLUMN parent_run_id TEXT REFERENCES runs(id) ON DELETE CASCADE;
ALTER TABLE runs ADD COLUMN parent_tool_call_id TEXT;
ALTER TABLE runs ADD COLUMN agent TEXT;
CREATE INDEX runs_parent ON runs(parent_run_id) WHERE parent_run_id IS NOT NULL;

-- Summaries of long conversations: a message that stands for the lead's
-- messages up to and including seq `summary_of`. The model's history starts
-- from the newest summary; the messages it covers stay for the record.
ALTER TABLE messages ADD COLUMN summary_of INTEGER;
