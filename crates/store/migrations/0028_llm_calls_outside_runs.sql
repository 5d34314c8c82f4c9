-- Model calls made outside a companion's run (issue 20: usage counts every
-- call a child causes): the entry's router and homework check, the memory
-- tips of an attempt, the memory sweep. They have no thread; the child they
-- were made for and what for are kept instead, so usage and the daily
-- limits count them with the conversations' calls.
ALTER TABLE llm_calls ADD COLUMN profile_id TEXT REFERENCES profiles(id) ON DELETE CASCADE; -- the child a call outside a conversation was made for
ALTER TABLE llm_calls ADD COLUMN purpose TEXT; -- what a call outside a conversation was for: route, homework, tips, memories
CREATE INDEX llm_calls_profile ON llm_calls(profile_id, created_at) WHERE profile_id IS NOT NULL;
