//! A parent's and the API's view of the companion's threads: listed
//! (runs a crash cut off closed first), made, their metadata and state
//! changed, deleted with their files, and read whole — as stored
//! (`thread`) or as the window shows it (`thread_view`: messages, todos,
//! tool calls, runs with usage, approvals, subagents).

use super::*;

impl Chat {
    /// Closes runs a crash cut off (see `deskmate_agent::recover_interrupted_runs`).
    pub fn recover_runs(&self) -> AppResult<usize> {
        deskmate_agent::recover_interrupted_runs(self.store(), &self.threads_dir())
            .map_err(agent_error)
    }

    /// Threads, newest first (one profile's when given).
    pub fn threads(&self, profile: Option<&str>) -> AppResult<Vec<Thread>> {
        self.recover_runs()?;
        let profile_id = match profile {
            Some(key) => Some(crate::recite::find_profile(self.store(), key)?.id),
            None => None,
        };
        Ok(persist::list_threads(self.store(), profile_id.as_deref())?)
    }

    /// A new, empty thread (an API client creates one before its first
    /// run), filed under a profile (by id or name) when given, with a
    /// front end's metadata.
    pub fn create_thread(
        &self,
        profile: Option<&str>,
        metadata: &serde_json::Map<String, serde_json::Value>,
    ) -> AppResult<Thread> {
        let profile_id = match profile {
            Some(key) => Some(crate::recite::find_profile(self.store(), key)?.id),
            None => None,
        };
        let thread = persist::create_thread(self.store(), profile_id.as_deref(), "")?;
        if !metadata.is_empty() {
            persist::set_thread_metadata(self.store(), &thread.id, metadata)?;
        }
        Ok(persist::get_thread(self.store(), &thread.id)?)
    }

    /// A thread's metadata (`{}` when none was set).
    pub fn thread_metadata(&self, thread_id: &str) -> AppResult<serde_json::Value> {
        Ok(persist::thread_metadata(self.store(), thread_id)?)
    }

    /// Merges `patch` into a thread's metadata (a key set to `null` is
    /// removed) and returns the result.
    pub fn patch_thread_metadata(
        &self,
        thread_id: &str,
        patch: &serde_json::Map<String, serde_json::Value>,
    ) -> AppResult<serde_json::Value> {
        let mut current = match persist::thread_metadata(self.store(), thread_id)? {
            serde_json::Value::Object(m) => m,
            _ => serde_json::Map::new(),
        };
        for (k, v) in patch {
            if v.is_null() {
                current.remove(k);
            } else {
                current.insert(k.clone(), v.clone());
            }
        }
        persist::set_thread_metadata(self.store(), thread_id, &current)?;
        Ok(serde_json::Value::Object(current))
    }

    /// Deletes a thread, its history and its workspace files. A thread with
    /// a run going on is refused (`conflict`), nothing deleted.
    pub fn delete_thread(&self, thread_id: &str) -> AppResult<()> {
        persist::get_thread(self.store(), thread_id)?;
        if !persist::running_runs(self.store(), Some(thread_id))?.is_empty() {
            return Err(deskmate_store::StoreError::Conflict(format!(
                "thread {thread_id} has a run going on; stop it before deleting the thread"
            ))
            .into());
        }
        persist::delete_thread(self.store(), thread_id)?;
        let dir = deskmate_agent::thread_dir(&self.threads_dir(), thread_id);
        if dir.exists() {
            if let Err(e) = std::fs::remove_dir_all(&dir) {
                tracing::warn!("cannot remove the thread's files {}: {e}", dir.display());
            }
        }
        Ok(())
    }

    /// Sets a thread's state: the todo list when given, and `vars` merged
    /// key by key — or, with `replace`, both replaced (what is not given is
    /// emptied). Refused while a run is going on (`conflict`): the run would
    /// write its own state over it.
    pub fn update_state(
        &self,
        thread_id: &str,
        todos: Option<Vec<deskmate_agent::Todo>>,
        vars: serde_json::Map<String, serde_json::Value>,
        replace: bool,
    ) -> AppResult<deskmate_agent::ThreadState> {
        persist::get_thread(self.store(), thread_id)?;
        if !persist::running_runs(self.store(), Some(thread_id))?.is_empty() {
            return Err(deskmate_store::StoreError::Conflict(format!(
                "thread {thread_id} has a run going on; set its state when the run has ended"
            ))
            .into());
        }
        let mut state = if replace {
            deskmate_agent::ThreadState::default()
        } else {
            persist::load_state(self.store(), thread_id)?
        };
        if let Some(todos) = todos {
            state.todos = todos;
        }
        for (k, v) in vars {
            if v.is_null() && !replace {
                state.vars.remove(&k);
            } else {
                state.vars.insert(k, v);
            }
        }
        persist::save_state(self.store(), thread_id, &state)?;
        Ok(state)
    }

    /// A whole thread: messages, tool calls, runs and state.
    pub fn thread(&self, thread_id: &str) -> AppResult<ThreadView> {
        self.recover_runs()?;
        Ok(persist::thread_view(self.store(), thread_id)?)
    }

    /// A thread as the chat screen shows it: each message's text, the tool
    /// calls it asked for, whether a tool result was a failure, and each
    /// subagent's stored run under the `task` call that started it.
    pub fn thread_view(&self, thread_id: &str) -> AppResult<protocol::ThreadView> {
        let view = self.thread(thread_id)?;
        let messages = view.messages.into_iter().map(message_view).collect();
        let runs = view
            .runs
            .iter()
            .map(|r| {
                let usage = view.usage.iter().find(|u| u.run_id == r.id);
                protocol::RunSummary {
                    id: r.id.clone(),
                    status: run_status(r.status),
                    model: r.model.clone(),
                    model_calls: usage.map_or(0, |u| u.model_calls),
                    input_tokens: usage.map_or(0, |u| u.input_tokens),
                    output_tokens: usage.map_or(0, |u| u.output_tokens),
                    cost_usd: usage.map_or(0.0, |u| u.cost_usd),
                    subagent_runs: usage.map_or(0, |u| u.subagent_runs),
                    started_at: r.started_at.clone(),
                }
            })
            .collect();
        let approvals = persist::open_approvals_of_thread(self.store(), thread_id)?
            .into_iter()
            .filter(|a| a.decision.is_none())
            .map(|a| protocol::PendingApproval {
                tool_call_id: a.tool_call_id,
                run_id: a.run_id,
                tool: a.tool,
                arguments: a.arguments,
                requested_at: a.requested_at,
            })
            .collect();
        let subagents = subagent_runs::subagent_runs(self.store(), view.children)?;
        Ok(protocol::ThreadView {
            thread: view.thread,
            messages,
            todos: view.state.todos,
            tool_calls: view.tool_calls,
            runs,
            approvals,
            subagents,
        })
    }
}
