//! The loop: model call → tool calls → tools (concurrently) → results → …
//! until a final answer, the step limit or cancellation. Each model reply is
//! streamed out as AG-UI events while it arrives and stored when complete;
//! each tool result is stored the moment it is ready; every tool call ends
//! with a result, even when the run is stopped or fails.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use deskmate_llm::{ChatRequest, LlmError, Message, StreamEvent, ToolCall, Usage};
use futures_util::stream::{FuturesUnordered, StreamExt};
use serde_json::{json, Value};
use tokio::sync::mpsc::UnboundedSender;
use tokio_util::sync::CancellationToken;

use crate::events::AgUiEvent;
use crate::persist::{self, LlmCallRecord, RunStatus, StoredMessage, ToolCallStatus};
use crate::runtime::{db, PreparedRun, RunOutcome};
use crate::tools::{RunContext, ThreadState, ToolContext, ToolOutput, WaitingCall};
use crate::{large_results, AgentError};
use deskmate_protocol::agui::{Interrupt, RunFinishedOutcome};

/// Where a run's events go. A dropped receiver does not stop the run.
pub type EventSink = UnboundedSender<AgUiEvent>;

/// How a model turn ended.
enum TurnEnd {
    Done,
    Cancelled,
    Failed(LlmError),
}

/// One model reply as it was streamed.
struct Turn {
    message_id: String,
    text: String,
    text_open: bool,
    calls: Vec<ToolCall>,
    usage: Usage,
    end: TurnEnd,
}

impl PreparedRun {
    /// Drives the run to its end, sending AG-UI events to `events`.
    pub async fn execute(mut self, events: EventSink, cancel: CancellationToken) -> RunOutcome {
        // Tools that start work of their own (subagents) report on it here.
        self.events = Some(events.clone());
        let emit = |ev: AgUiEvent| {
            let _ = events.send(ev);
        };
        let thread_id = self.thread.id.clone();
        let run_id = self.run.id.clone();
        emit(AgUiEvent::RunStarted {
            thread_id: thread_id.clone(),
            run_id: run_id.clone(),
        });
        emit(AgUiEvent::StateSnapshot {
            snapshot: serde_json::to_value(&self.state).unwrap_or_default(),
        });
        let outcome = |status, answer: String, error: Option<String>, steps| RunOutcome {
            thread_id: thread_id.clone(),
            run_id: run_id.clone(),
            status,
            answer,
            error,
            steps,
            waiting: Vec::new(),
        };
        // Calls a parent approved while the run was paused run first (with
        // the `task` calls whose subagents paused: each continues its run).
        let approved = std::mem::take(&mut self.approved);
        if !approved.is_empty() {
            // This run's stream announces them again before their results.
            for c in &approved {
                emit(AgUiEvent::ToolCallStart {
                    tool_call_id: c.id.clone(),
                    tool_call_name: c.name.clone(),
                    parent_message_id: None,
                });
                emit(AgUiEvent::ToolCallArgs {
                    tool_call_id: c.id.clone(),
                    delta: c.arguments.clone(),
                });
                emit(AgUiEvent::ToolCallEnd {
                    tool_call_id: c.id.clone(),
                });
            }
            let step = self.first_step.saturating_sub(1);
            match self.run_tools(&approved, &emit, &cancel).await {
                Ok(ran) if !ran.cancelled && ran.waiting.is_empty() => {}
                // A subagent that continued asked for another approval.
                Ok(ran) if !ran.cancelled => {
                    return self
                        .end_paused(
                            &emit,
                            ran.waiting,
                            outcome(RunStatus::Interrupted, String::new(), None, step),
                        )
                        .await;
                }
                Ok(_) => {
                    return self
                        .end_cancelled(
                            &emit,
                            outcome(RunStatus::Cancelled, String::new(), None, step),
                        )
                        .await;
                }
                Err(e) => {
                    return self
                        .end_error(
                            &emit,
                            &e.to_string(),
                            "STORE",
                            outcome(RunStatus::Error, String::new(), Some(e.to_string()), step),
                        )
                        .await;
                }
            }
        }
        let max_steps = self.agent.inner.config.max_steps.max(1);
        let first = self.first_step.max(1);
        let last = first + max_steps - 1;
        for step in first..=last {
            let step_name = format!("step {step}");
            if cancel.is_cancelled() {
                return self
                    .end_cancelled(
                        &emit,
                        outcome(RunStatus::Cancelled, String::new(), None, step - 1),
                    )
                    .await;
            }
            emit(AgUiEvent::StepStarted {
                step_name: step_name.clone(),
            });
            match self.step(step, &emit, &cancel).await {
                Ok(StepResult::Answer(answer)) => {
                    emit(AgUiEvent::StepFinished { step_name });
                    if let Err(e) = self.finish(RunStatus::Completed, None).await {
                        return self
                            .end_error(
                                &emit,
                                &e.to_string(),
                                "STORE",
                                outcome(RunStatus::Error, String::new(), Some(e.to_string()), step),
                            )
                            .await;
                    }
                    emit(AgUiEvent::RunFinished {
                        thread_id: thread_id.clone(),
                        run_id: run_id.clone(),
                        result: Some(json!({"status": "completed", "answer": answer})),
                        outcome: Some(RunFinishedOutcome::Success),
                    });
                    return outcome(RunStatus::Completed, answer, None, step);
                }
                Ok(StepResult::Continue) => emit(AgUiEvent::StepFinished { step_name }),
                Ok(StepResult::Paused(waiting)) => {
                    emit(AgUiEvent::StepFinished { step_name });
                    return self
                        .end_paused(
                            &emit,
                            waiting,
                            outcome(RunStatus::Interrupted, String::new(), None, step),
                        )
                        .await;
                }
                Ok(StepResult::Cancelled) => {
                    emit(AgUiEvent::StepFinished { step_name });
                    return self
                        .end_cancelled(
                            &emit,
                            outcome(RunStatus::Cancelled, String::new(), None, step),
                        )
                        .await;
                }
                Err(StepError::Llm(e)) => {
                    emit(AgUiEvent::StepFinished { step_name });
                    let message = e.to_string();
                    let code = e.code().to_uppercase();
                    return self
                        .end_error(
                            &emit,
                            &message,
                            &code,
                            outcome(RunStatus::Error, String::new(), Some(message.clone()), step),
                        )
                        .await;
                }
                Err(StepError::Agent(e)) => {
                    emit(AgUiEvent::StepFinished { step_name });
                    let message = e.to_string();
                    return self
                        .end_error(
                            &emit,
                            &message,
                            "STORE",
                            outcome(RunStatus::Error, String::new(), Some(message.clone()), step),
                        )
                        .await;
                }
            }
        }
        let message = format!("stopped after {max_steps} steps without a final answer (the step limit); ask again to continue");
        let _ = self.finish(RunStatus::StepLimit, Some(&message)).await;
        emit(AgUiEvent::RunError {
            message: message.clone(),
            code: Some("STEP_LIMIT".into()),
        });
        outcome(
            RunStatus::StepLimit,
            String::new(),
            Some(message),
            max_steps,
        )
    }

    async fn finish(&self, status: RunStatus, error: Option<&str>) -> Result<(), AgentError> {
        let run_id = self.run.id.clone();
        let error = error.map(str::to_string);
        db(&self.agent.inner.store, move |s| {
            persist::finish_run(s, &run_id, status, error.as_deref())
        })
        .await
    }

    /// Ends the run paused for a parent's approval on `waiting` (its own
    /// calls and its subagents'): stored `interrupted`, and AG-UI's
    /// interrupt — `RUN_FINISHED` naming each call it waits for.
    async fn end_paused(
        &self,
        emit: &impl Fn(AgUiEvent),
        waiting: Vec<WaitingCall>,
        mut out: RunOutcome,
    ) -> RunOutcome {
        let why = "waiting for a parent's approval";
        if let Err(e) = self.finish(RunStatus::Interrupted, Some(why)).await {
            let message = e.to_string();
            out.status = RunStatus::Error;
            out.error = Some(message.clone());
            return self.end_error(emit, &message, "STORE", out).await;
        }
        let interrupts: Vec<Value> = waiting
            .iter()
            .map(|w| serde_json::to_value(w).unwrap_or_default())
            .collect();
        emit(AgUiEvent::RunFinished {
            thread_id: out.thread_id.clone(),
            run_id: out.run_id.clone(),
            result: Some(json!({
                "status": "interrupted",
                "outcome": "interrupt",
                "interrupts": interrupts,
            })),
            outcome: Some(RunFinishedOutcome::Interrupt {
                interrupts: waiting.iter().map(interrupt_of).collect(),
            }),
        });
        out.status = RunStatus::Interrupted;
        out.error = Some(why.to_string());
        out.waiting = waiting;
        out
    }

    async fn end_cancelled(&self, emit: &impl Fn(AgUiEvent), out: RunOutcome) -> RunOutcome {
        let _ = self
            .finish(RunStatus::Cancelled, Some("stopped by the user"))
            .await;
        emit(AgUiEvent::RunFinished {
            thread_id: out.thread_id.clone(),
            run_id: out.run_id.clone(),
            result: Some(json!({"status": "cancelled"})),
            outcome: Some(RunFinishedOutcome::Cancelled),
        });
        out
    }

    async fn end_error(
        &self,
        emit: &impl Fn(AgUiEvent),
        message: &str,
        code: &str,
        out: RunOutcome,
    ) -> RunOutcome {
        let _ = self.finish(RunStatus::Error, Some(message)).await;
        emit(AgUiEvent::RunError {
            message: message.to_string(),
            code: Some(code.to_string()),
        });
        out
    }

    /// One model call and the tools it asks for.
    async fn step(
        &mut self,
        step: u32,
        emit: &impl Fn(AgUiEvent),
        cancel: &CancellationToken,
    ) -> Result<StepResult, StepError> {
        let inner = Arc::clone(&self.agent.inner);
        // The step count is written now, as the step starts, but the model is
        // called while the blocking pool does it: the write is awaited
        // before anything of the reply is stored, so the order in the
        // database is unchanged and a failed write still stops the step.
        let (store, run_id) = (inner.store.clone(), self.run.id.clone());
        let steps_saved =
            tokio::task::spawn_blocking(move || persist::set_run_steps(&store, &run_id, step));
        // A long conversation is summarized before it outgrows the window.
        if let Err(e) = self.fit_context(emit).await {
            // Best not to call the model with a history that may not fit,
            // but a store failure here is the step's failure like any other.
            return Err(e.into());
        }
        let started = Instant::now();
        let turn = self.model_turn(emit, cancel).await;
        match steps_saved.await {
            Ok(r) => r.map_err(AgentError::from)?,
            Err(e) => return Err(AgentError::Io(format!("a database task stopped: {e}")).into()),
        }

        // Store what the model said (and the call's record, in the same
        // transaction) before closing its events.
        let said = !turn.text.is_empty() || !turn.calls.is_empty();
        let reply = said.then(|| Message::assistant(turn.text.clone(), turn.calls.clone()));
        let record = self.call_record(&turn, started);
        let mid = turn.message_id.clone();
        let reply = db(&inner.store, move |s| {
            persist::store_model_reply(s, &record, reply.as_ref().map(|m| (mid.as_str(), m)))?;
            Ok(reply)
        })
        .await?;
        if let Some(m) = reply {
            self.history.push(m);
        }
        for c in &turn.calls {
            emit(AgUiEvent::ToolCallEnd {
                tool_call_id: c.id.clone(),
            });
        }
        if turn.text_open {
            emit(AgUiEvent::TextMessageEnd {
                message_id: turn.message_id.clone(),
            });
        }
        match turn.end {
            TurnEnd::Done => {}
            TurnEnd::Cancelled => {
                self.answer_unanswered(
                    &turn.calls,
                    "Error: not run: the user stopped the run",
                    emit,
                )
                .await?;
                return Ok(StepResult::Cancelled);
            }
            TurnEnd::Failed(e) => {
                self.answer_unanswered(
                    &turn.calls,
                    "Error: not run: the model's reply was cut off",
                    emit,
                )
                .await?;
                return Err(StepError::Llm(e));
            }
        }
        if turn.calls.is_empty() {
            return Ok(StepResult::Answer(turn.text));
        }
        // Calls of tools that need a parent's approval wait (in a subagent
        // too: its run holds them and its lead pauses with it); the others run.
        let (held, free): (Vec<ToolCall>, Vec<ToolCall>) = turn
            .calls
            .iter()
            .cloned()
            .partition(|c| inner.config.approvals.contains(&c.name));
        if !held.is_empty() {
            // Stored before any other call runs: killed while they run, the
            // held calls still wait for the parent instead of being closed
            // as interrupted.
            let (thread_id, run_id, asked) =
                (self.thread.id.clone(), self.run.id.clone(), held.clone());
            db(&inner.store, move |s| {
                persist::request_approvals(s, &thread_id, &run_id, &asked)
            })
            .await?;
        }
        let ran = if free.is_empty() {
            Ran::default()
        } else {
            self.run_tools(&free, emit, cancel).await?
        };
        if ran.cancelled {
            if !held.is_empty() {
                let text = "Error: not run: the user stopped the run";
                let calls: Vec<(String, String)> = held
                    .iter()
                    .map(|c| (self.run.id.clone(), c.id.clone()))
                    .collect();
                self.answer_unanswered(&held, text, emit).await?;
                let thread_id = self.thread.id.clone();
                db(&inner.store, move |s| {
                    persist::withdraw_approvals(s, &thread_id, &calls, text)
                })
                .await?;
            }
            return Ok(StepResult::Cancelled);
        }
        let mut waiting: Vec<WaitingCall> = held
            .into_iter()
            .map(|c| WaitingCall {
                id: c.id,
                tool: c.name,
                arguments: c.arguments,
                run_id: self.run.id.clone(),
                task_call_id: None,
                subagent_type: None,
            })
            .collect();
        waiting.extend(ran.waiting);
        Ok(if waiting.is_empty() {
            StepResult::Continue
        } else {
            StepResult::Paused(waiting)
        })
    }

    /// Streams one model reply into events.
    async fn model_turn(&mut self, emit: &impl Fn(AgUiEvent), cancel: &CancellationToken) -> Turn {
        let inner = Arc::clone(&self.agent.inner);
        let mut turn = Turn {
            message_id: uuid::Uuid::now_v7().to_string(),
            text: String::new(),
            text_open: false,
            calls: vec![],
            usage: Usage::default(),
            end: TurnEnd::Done,
        };
        // The history and tool specifications are lent to the request and
        // taken back once it is sent (the stream does not borrow it), so a
        // step does not copy the whole conversation.
        let req = ChatRequest {
            system: self.system.take(),
            messages: std::mem::take(&mut self.history),
            tools: std::mem::take(&mut self.specs),
            max_tokens: inner.config.max_tokens,
            temperature: inner.config.temperature,
        };
        let opened = tokio::select! {
            biased;
            _ = cancel.cancelled() => None,
            s = inner.llm.stream(&req) => Some(s),
        };
        self.system = req.system;
        self.history = req.messages;
        self.specs = req.tools;
        let mut stream = match opened {
            None => {
                turn.end = TurnEnd::Cancelled;
                return turn;
            }
            Some(Ok(s)) => s,
            Some(Err(e)) => {
                turn.end = TurnEnd::Failed(e);
                return turn;
            }
        };
        let mut by_index: HashMap<usize, usize> = HashMap::new();
        loop {
            let next = tokio::select! {
                biased;
                _ = cancel.cancelled() => { turn.end = TurnEnd::Cancelled; break; }
                ev = stream.next() => ev,
            };
            match next {
                None => break,
                Some(Err(e)) => {
                    turn.end = TurnEnd::Failed(e);
                    break;
                }
                Some(Ok(StreamEvent::TextDelta(delta))) => {
                    if !turn.text_open {
                        turn.text_open = true;
                        emit(AgUiEvent::TextMessageStart {
                            message_id: turn.message_id.clone(),
                            role: "assistant".into(),
                        });
                    }
                    turn.text.push_str(&delta);
                    emit(AgUiEvent::TextMessageContent {
                        message_id: turn.message_id.clone(),
                        delta,
                    });
                }
                Some(Ok(StreamEvent::ToolCallStart { index, id, name })) => {
                    // Ids must be unique in the thread; some servers reuse `call_0`.
                    let id = if id.is_empty() || self.known_call_ids.contains(&id) {
                        format!("call_{}", uuid::Uuid::now_v7().simple())
                    } else {
                        id
                    };
                    self.known_call_ids.insert(id.clone());
                    by_index.insert(index, turn.calls.len());
                    emit(AgUiEvent::ToolCallStart {
                        tool_call_id: id.clone(),
                        tool_call_name: name.clone(),
                        parent_message_id: Some(turn.message_id.clone()),
                    });
                    turn.calls.push(ToolCall {
                        id,
                        name,
                        arguments: String::new(),
                    });
                }
                Some(Ok(StreamEvent::ToolCallArgs { index, delta })) => {
                    if let Some(call) = by_index.get(&index).and_then(|&i| turn.calls.get_mut(i)) {
                        call.arguments.push_str(&delta);
                        emit(AgUiEvent::ToolCallArgs {
                            tool_call_id: call.id.clone(),
                            delta,
                        });
                    }
                }
                Some(Ok(StreamEvent::Usage(u))) => turn.usage = u,
                Some(Ok(StreamEvent::Finished { .. })) => {}
            }
        }
        turn
    }

    /// The record of the model call `turn`, which began at `started`.
    fn call_record(&self, turn: &Turn, started: Instant) -> LlmCallRecord {
        let inner = &self.agent.inner;
        let model = inner.llm.model();
        let (status, error) = match &turn.end {
            TurnEnd::Done => ("completed", None),
            TurnEnd::Cancelled => ("cancelled", None),
            TurnEnd::Failed(e) => ("error", Some(e.to_string())),
        };
        LlmCallRecord {
            thread_id: self.thread.id.clone(),
            run_id: self.run.id.clone(),
            model: model.to_string(),
            status,
            usage: turn.usage,
            cost_usd: inner.config.prices.cost(model, &turn.usage),
            duration_ms: u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX),
            error,
        }
    }

    /// Runs the calls concurrently, storing and announcing each result as it
    /// comes. Returns whether the run was cancelled meanwhile, and the calls
    /// a subagent started by one of them paused on (that call stays pending).
    async fn run_tools(
        &mut self,
        calls: &[ToolCall],
        emit: &impl Fn(AgUiEvent),
        cancel: &CancellationToken,
    ) -> Result<Ran, AgentError> {
        let inner = Arc::clone(&self.agent.inner);
        let limit = inner.config.large_result_tokens;
        let mut pending: FuturesUnordered<_> = calls
            .iter()
            .cloned()
            .map(|call| {
                let ctx = ToolContext {
                    sandbox: Arc::clone(&self.sandbox),
                    thread_id: self.thread.id.clone(),
                    tool_call_id: call.id.clone(),
                    run: Some(RunContext {
                        agent: self.agent.clone(),
                        run_id: self.run.id.clone(),
                        cancel: cancel.clone(),
                        events: self.events.clone(),
                        resume_run: self.resumed.remove(&call.id),
                    }),
                };
                let inner = Arc::clone(&inner);
                async move {
                    let mut out = inner
                        .tools
                        .call(ctx.clone(), &call.name, &call.arguments)
                        .await;
                    let evictable = inner.tools.get(&call.name).is_some_and(|t| t.evictable());
                    if evictable
                        && !out.is_error
                        && large_results::estimate_tokens(&out.content) > limit
                    {
                        let (sandbox, id, content) = (
                            Arc::clone(&ctx.sandbox),
                            call.id.clone(),
                            out.content.clone(),
                        );
                        let moved = tokio::task::spawn_blocking(move || {
                            large_results::evict(&sandbox, &id, &content, limit)
                        })
                        .await;
                        match moved {
                            Ok(Ok(Some(preview))) => out.content = preview,
                            Ok(Ok(None)) => {}
                            Ok(Err(e)) => {
                                out = ToolOutput::error(format!(
                                    "the result was too large to send and could not be saved: {e}"
                                ))
                            }
                            Err(e) => {
                                out =
                                    ToolOutput::error(format!("the result could not be saved: {e}"))
                            }
                        }
                    }
                    (call, out)
                }
            })
            .collect();
        let mut stored: Vec<StoredMessage> = Vec::new();
        let mut cancelled = false;
        let mut waiting: Vec<WaitingCall> = Vec::new();
        loop {
            let next = tokio::select! {
                biased;
                _ = cancel.cancelled() => { cancelled = true; break; }
                n = pending.next() => n,
            };
            let Some((call, out)) = next else { break };
            if !out.waiting.is_empty() {
                // Not answered: the subagent it started waits for a parent.
                waiting.extend(out.waiting);
                continue;
            }
            let status = if out.is_error {
                ToolCallStatus::Error
            } else {
                ToolCallStatus::Completed
            };
            // A new todo list is stored with the result, in one transaction
            // (a subagent's list is its own: kept in memory, not stored).
            let todos = if self.child { None } else { out.todos };
            let state = todos.map(|todos| {
                let mut state = self.state.clone();
                state.todos = todos;
                state
            });
            let (m, state) = self
                .store_result(&call.id, &out.content, status, state, emit)
                .await?;
            if let Some(m) = m {
                stored.push(m);
            }
            if let Some(state) = state {
                self.state = state;
                emit(AgUiEvent::StateDelta {
                    delta: vec![
                        json!({"op": "replace", "path": "/todos", "value": serde_json::to_value(&self.state.todos).unwrap_or_default()}),
                    ],
                });
            }
        }
        drop(pending);
        if cancelled && !waiting.is_empty() {
            // Stopped: what the subagents waited on will not be decided.
            let text = "Error: not run: the user stopped the run";
            let calls: Vec<(String, String)> =
                waiting.drain(..).map(|w| (w.run_id, w.id)).collect();
            let thread_id = self.thread.id.clone();
            db(&inner.store, move |s| {
                persist::withdraw_approvals(s, &thread_id, &calls, text)
            })
            .await?;
        }
        if cancelled {
            let answered: Vec<&str> = stored
                .iter()
                .filter_map(|m| m.message.tool_call_id.as_deref())
                .collect();
            let left: Vec<ToolCall> = calls
                .iter()
                .filter(|c| !answered.contains(&c.id.as_str()))
                .cloned()
                .collect();
            stored.extend(
                self.store_synthesized(
                    &left,
                    "Error: stopped: the user stopped the run before this tool finished",
                    emit,
                )
                .await?,
            );
            // Subagents stopped where they stood: their runs are closed too.
            let (thread_id, run_id) = (self.thread.id.clone(), self.run.id.clone());
            db(&inner.store, move |s| {
                persist::stop_child_runs(
                    s,
                    &thread_id,
                    &run_id,
                    "Error: stopped: the user stopped the run before this tool finished",
                )
            })
            .await?;
        }
        stored.sort_by_key(|m| m.seq);
        self.history.extend(stored.into_iter().map(|m| m.message));
        Ok(Ran { cancelled, waiting })
    }

    /// Gives calls that will never run a result, so the thread stays whole.
    async fn answer_unanswered(
        &mut self,
        calls: &[ToolCall],
        text: &str,
        emit: &impl Fn(AgUiEvent),
    ) -> Result<(), AgentError> {
        let stored = self.store_synthesized(calls, text, emit).await?;
        self.history.extend(stored.into_iter().map(|m| m.message));
        Ok(())
    }

    async fn store_synthesized(
        &self,
        calls: &[ToolCall],
        text: &str,
        emit: &impl Fn(AgUiEvent),
    ) -> Result<Vec<StoredMessage>, AgentError> {
        let mut out = Vec::new();
        for c in calls {
            if let (Some(m), _) = self
                .store_result(&c.id, text, ToolCallStatus::Error, None, emit)
                .await?
            {
                out.push(m);
            }
        }
        Ok(out)
    }

    /// Stores a tool call's result (with the thread state `state` when the
    /// tool changed it) and announces it. Hands `state` back once stored.
    async fn store_result(
        &self,
        call_id: &str,
        content: &str,
        status: ToolCallStatus,
        state: Option<ThreadState>,
        emit: &impl Fn(AgUiEvent),
    ) -> Result<(Option<StoredMessage>, Option<ThreadState>), AgentError> {
        let (tid, rid, cid, text) = (
            self.thread.id.clone(),
            self.run.id.clone(),
            call_id.to_string(),
            content.to_string(),
        );
        let (stored, state) = db(&self.agent.inner.store, move |s| {
            let m = persist::store_tool_result(
                s,
                &tid,
                Some(&rid),
                &cid,
                &text,
                status,
                state.as_ref(),
            )?;
            Ok((m, state))
        })
        .await?;
        if let Some(m) = &stored {
            emit(AgUiEvent::ToolCallResult {
                message_id: m.id.clone(),
                tool_call_id: call_id.to_string(),
                content: content.to_string(),
                role: Some("tool".into()),
            });
        }
        Ok((stored, state))
    }
}

enum StepResult {
    Answer(String),
    Continue,
    Cancelled,
    /// Calls wait for a parent's approval: the run pauses.
    Paused(Vec<WaitingCall>),
}

/// How a batch of tool calls ended.
#[derive(Default)]
struct Ran {
    cancelled: bool,
    /// Calls the subagents started by this batch paused on.
    waiting: Vec<WaitingCall>,
}

enum StepError {
    Llm(LlmError),
    Agent(AgentError),
}

impl From<AgentError> for StepError {
    fn from(e: AgentError) -> Self {
        StepError::Agent(e)
    }
}

/// AG-UI's interrupt for a call that waits for a parent: answered by the
/// call's id; a call held inside a subagent names that subagent's run.
fn interrupt_of(w: &WaitingCall) -> Interrupt {
    Interrupt {
        id: w.id.clone(),
        reason: "tool_approval".into(),
        message: Some(format!("waiting for a parent's approval: {}", w.tool)),
        tool_call_id: Some(w.id.clone()),
        subagent_run_id: w.task_call_id.as_ref().map(|_| w.run_id.clone()),
        metadata: Some(json!({
            "tool": w.tool,
            "arguments": w.arguments,
            "taskCallId": w.task_call_id,
            "subagentType": w.subagent_type,
        })),
    }
}
