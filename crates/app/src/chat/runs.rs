//! The companion's runs: started (the agent built off the async executor,
//! where it reads settings, the keyring and the parent's skills), resumed
//! after a crash or a parent's decisions, run on the runtime where they can
//! be stopped, and the approvals they wait on.

use super::*;

impl Chat {
    /// Starts a run and returns at once; its AG-UI events go to `events`.
    /// Call from inside a tokio runtime.
    pub async fn start(
        &self,
        msg: ChatMessage,
        opts: &ChatOptions,
        events: EventSink,
    ) -> AppResult<ChatRun> {
        // A profile by id or by name, as everywhere else; an unknown one says so.
        let profile_id = match msg.profile_id.as_deref() {
            Some(key) => Some(crate::recite::find_profile(self.store(), key)?.id),
            None => None,
        };
        // A parent's quiet hours and daily limits, checked where the chat
        // starts as they are where every request enters.
        if let Some(id) = &profile_id {
            deskmate_orchestrator::limits::admit_model_use(self.store(), id, chrono::Utc::now())?
                .map_err(deskmate_orchestrator::SceneError::Limited)?;
        }
        let agent = self
            .agent_off_executor(opts, profile_id.clone(), msg.text.clone())
            .await?;
        let (mut text, mut thread_id) = (msg.text, msg.thread_id);
        let mut images: Vec<(String, String)> = msg
            .images
            .into_iter()
            .map(|i| (i.media_type, i.data_base64))
            .collect();
        if !msg.attachments.is_empty() {
            // Checked (and PDFs read) before anything is kept; then the
            // files go into the thread's workspace, a new thread made now
            // so they have one.
            let (app, model, files) = (self.clone(), agent.model().clone(), msg.attachments);
            let (profile, said, thread) = (profile_id.clone(), text.clone(), thread_id.clone());
            let (id, stored) = tokio::task::spawn_blocking(move || {
                let checked = attachments::check(&files, &model)?;
                let id = match thread {
                    Some(id) => persist::get_thread(app.store(), &id)?.id,
                    None => {
                        persist::create_thread(
                            app.store(),
                            profile.as_deref(),
                            &persist::title_from(&said),
                        )?
                        .id
                    }
                };
                let root = deskmate_agent::workspace_dir(&app.threads_dir(), &id);
                AppResult::Ok((id, attachments::store(&root, checked)?))
            })
            .await
            .map_err(|e| AppError::Thread {
                what: "cannot keep the attached files",
                reason: e.to_string(),
            })??;
            text.push_str(&attachments::note(&stored));
            images.extend(stored.into_iter().filter_map(|s| s.image));
            thread_id = Some(id);
        }
        let mut content = vec![ContentPart::Text { text }];
        content.extend(
            images
                .into_iter()
                .map(|(media_type, data)| ContentPart::Image { media_type, data }),
        );
        let req_profile = profile_id.clone();
        let req = RunRequest {
            thread_id,
            profile_id,
            content,
        };
        let prepared = agent.prepare(req).await.map_err(agent_error)?;
        // A child's replies are checked before the child sees them.
        let guard = child_safety::ChildGuard::for_profile(self.store(), req_profile.as_deref())?;
        Ok(self.spawn_run(prepared, events, guard))
    }

    /// Continues a run a crash cut off (`interrupted`) from its last stored
    /// step, under the same id; its events go to `events` as a new run's do.
    /// Call from inside a tokio runtime.
    pub async fn resume(
        &self,
        run_id: &str,
        opts: &ChatOptions,
        events: EventSink,
    ) -> AppResult<ChatRun> {
        let app = self.clone();
        let id = run_id.to_string();
        let profile_id = tokio::task::spawn_blocking(move || -> AppResult<Option<String>> {
            let run = persist::get_run(app.store(), &id)?;
            Ok(persist::get_thread(app.store(), &run.thread_id)?.profile_id)
        })
        .await
        .map_err(|e| AppError::Thread {
            what: "cannot read the run",
            reason: e.to_string(),
        })??;
        let guard = child_safety::ChildGuard::for_profile(self.store(), profile_id.as_deref())?;
        let agent = self
            .agent_off_executor(opts, profile_id, String::new())
            .await?;
        let prepared = agent.prepare_resume(run_id).await.map_err(agent_error)?;
        Ok(self.spawn_run(prepared, events, guard))
    }

    /// [`Chat::agent`] on the blocking pool: it reads settings,
    /// the keyring and the parent's skills folder.
    async fn agent_off_executor(
        &self,
        opts: &ChatOptions,
        profile_id: Option<String>,
        said: String,
    ) -> AppResult<Agent> {
        // The MCP servers this run may use are started first (asynchronously).
        let mcp = crate::mcp::run_tools(self.store(), profile_id.as_deref()).await?;
        let (app, opts) = (self.clone(), opts.clone());
        tokio::task::spawn_blocking(move || app.agent(&opts, profile_id.as_deref(), mcp, &said))
            .await
            .map_err(|e| AppError::Thread {
                what: "cannot set up the companion",
                reason: e.to_string(),
            })?
    }

    /// Runs a prepared run on the runtime, stoppable with [`Chat::cancel_run`].
    /// With a `guard` (a child's run), the events go through the child's
    /// output check first, and a replaced final answer is the safe one.
    fn spawn_run(
        &self,
        prepared: deskmate_agent::PreparedRun,
        events: EventSink,
        guard: Option<child_safety::ChildGuard>,
    ) -> ChatRun {
        let (thread_id, run_id) = (
            prepared.thread_id().to_string(),
            prepared.run_id().to_string(),
        );
        let cancel = CancellationToken::new();
        let runs = self.chat_runs().clone();
        runs.insert(&run_id, cancel.clone());
        let id = run_id.clone();
        let (events, checking) = match guard {
            Some(g) => {
                let (sink, task) = g.watch(events);
                (sink, Some(task))
            }
            None => (events, None),
        };
        let done = tokio::spawn(async move {
            let mut outcome = prepared.execute(events, cancel).await;
            runs.remove(&id);
            // The run's sink is gone: the check ends once it has let the
            // last message through.
            if let Some(task) = checking {
                for r in task.await.unwrap_or_default() {
                    if outcome.answer.trim() == r.original.trim() {
                        outcome.answer = r.safe;
                    }
                }
            }
            outcome
        });
        ChatRun {
            thread_id,
            run_id,
            done,
        }
    }

    /// Tool calls waiting for a parent's approval, newest first.
    pub fn pending_approvals(&self) -> AppResult<Vec<persist::Approval>> {
        Ok(persist::open_approvals(self.store(), None)?
            .into_iter()
            .filter(|a| a.decision.is_none())
            .collect())
    }

    /// A parent's decision on a waiting call; the run continues with
    /// [`Chat::resume`] once each of its calls is decided.
    pub fn decide_approval(
        &self,
        run_id: &str,
        tool_call_id: &str,
        decision: &persist::ApprovalDecision,
    ) -> AppResult<persist::Approval> {
        Ok(persist::decide_approval(
            self.store(),
            run_id,
            tool_call_id,
            decision,
        )?)
    }

    /// Stops a run of this process. Returns whether it was running.
    pub fn cancel_run(&self, run_id: &str) -> bool {
        self.chat_runs().cancel(run_id)
    }
}
