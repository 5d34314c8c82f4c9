//! AG-UI protocol events — what a chat run shows as it happens — serialized
//! as the protocol's camelCase JSON with a `type` tag, e.g.
//! `{"type":"TEXT_MESSAGE_CONTENT","messageId":"…","delta":"Hi"}`. The rules
//! a well-formed sequence keeps are checked by `deskmate_agent::EventOrder`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// One AG-UI event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "SCREAMING_SNAKE_CASE")]
pub enum AgUiEvent {
    #[serde(rename_all = "camelCase")]
    RunStarted { thread_id: String, run_id: String },
    #[serde(rename_all = "camelCase")]
    RunFinished {
        thread_id: String,
        run_id: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional, type = "unknown")]
        result: Option<Value>,
        /// Why the run ended (AG-UI 1.0): absent or `success`, `interrupt`
        /// (paused for a parent; the interrupts say what waits), `cancelled`.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        outcome: Option<RunFinishedOutcome>,
    },
    #[serde(rename_all = "camelCase")]
    RunError {
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        code: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    StepStarted { step_name: String },
    #[serde(rename_all = "camelCase")]
    StepFinished { step_name: String },
    #[serde(rename_all = "camelCase")]
    TextMessageStart { message_id: String, role: String },
    #[serde(rename_all = "camelCase")]
    TextMessageContent { message_id: String, delta: String },
    #[serde(rename_all = "camelCase")]
    TextMessageEnd { message_id: String },
    #[serde(rename_all = "camelCase")]
    ToolCallStart {
        tool_call_id: String,
        tool_call_name: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        parent_message_id: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    ToolCallArgs { tool_call_id: String, delta: String },
    #[serde(rename_all = "camelCase")]
    ToolCallEnd { tool_call_id: String },
    #[serde(rename_all = "camelCase")]
    ToolCallResult {
        message_id: String,
        tool_call_id: String,
        content: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        role: Option<String>,
    },
    #[serde(rename_all = "camelCase")]
    StateSnapshot {
        #[ts(type = "unknown")]
        snapshot: Value,
    },
    /// RFC 6902 JSON Patch operations on the last snapshot.
    #[serde(rename_all = "camelCase")]
    StateDelta {
        #[ts(type = "Array<JsonPatchOp>")]
        delta: Vec<Value>,
    },
    /// Something the app tells the front end that AG-UI has no event for
    /// (AG-UI's `CUSTOM`): `name` says what, e.g. `history_shortened`.
    #[serde(rename_all = "camelCase")]
    Custom {
        name: String,
        #[ts(type = "unknown")]
        value: Value,
    },
}

impl AgUiEvent {
    /// The protocol's name of this event (`RUN_STARTED`, …).
    pub fn kind(&self) -> &'static str {
        match self {
            AgUiEvent::RunStarted { .. } => "RUN_STARTED",
            AgUiEvent::RunFinished { .. } => "RUN_FINISHED",
            AgUiEvent::RunError { .. } => "RUN_ERROR",
            AgUiEvent::StepStarted { .. } => "STEP_STARTED",
            AgUiEvent::StepFinished { .. } => "STEP_FINISHED",
            AgUiEvent::TextMessageStart { .. } => "TEXT_MESSAGE_START",
            AgUiEvent::TextMessageContent { .. } => "TEXT_MESSAGE_CONTENT",
            AgUiEvent::TextMessageEnd { .. } => "TEXT_MESSAGE_END",
            AgUiEvent::ToolCallStart { .. } => "TOOL_CALL_START",
            AgUiEvent::ToolCallArgs { .. } => "TOOL_CALL_ARGS",
            AgUiEvent::ToolCallEnd { .. } => "TOOL_CALL_END",
            AgUiEvent::ToolCallResult { .. } => "TOOL_CALL_RESULT",
            AgUiEvent::Custom { .. } => "CUSTOM",
            AgUiEvent::StateSnapshot { .. } => "STATE_SNAPSHOT",
            AgUiEvent::StateDelta { .. } => "STATE_DELTA",
        }
    }
}

/// Why a run ended, as AG-UI 1.0's `RUN_FINISHED.outcome` says it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "lowercase")]
pub enum RunFinishedOutcome {
    /// The run completed.
    Success,
    /// The run paused: each interrupt waits for an answer (a parent's
    /// approval of a tool call); a new run that answers them resumes it.
    Interrupt { interrupts: Vec<Interrupt> },
    /// Stopped before it completed, by whoever ran it; nothing waits.
    Cancelled,
}

/// One thing a paused run waits for (AG-UI 1.0's `Interrupt`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Interrupt {
    /// Answered by this id (here: the waiting tool call's id).
    pub id: String,
    /// Why the run stopped, e.g. `tool_approval`.
    pub reason: String,
    /// A prompt for whoever answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub message: Option<String>,
    /// The tool call this interrupt is about, for a tool approval.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub tool_call_id: Option<String>,
    /// The subagent run that holds the call; absent when the run itself does.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub subagent_run_id: Option<String>,
    /// Extra facts: here the tool's name and arguments.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub metadata: Option<Value>,
}

/// One RFC 6902 JSON Patch operation, as a `STATE_DELTA` carries them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct JsonPatchOp {
    pub op: JsonPatchOpKind,
    pub path: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "unknown")]
    pub value: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub from: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum JsonPatchOpKind {
    Add,
    Remove,
    Replace,
    Move,
    Copy,
    Test,
}
