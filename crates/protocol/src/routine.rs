//! Routines parents design for their child (seed 004's DAG workflows): the
//! graph as it is saved, read from a file (`deskmate workflows create --file
//! F`) and drawn by the editor, the reasons a graph is refused, and what a
//! run reports node by node.
//!
//! A routine is a list of nodes; each names the node that follows it
//! (`next`), except `end`, which has none, and `condition`, which picks one
//! of its branches by a keyword in the last message, or its `default`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// A routine: its name (unique in the family), what it is for, its nodes,
/// and the children it is assigned to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct Routine {
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub nodes: Vec<RoutineNode>,
    /// The children (profile ids) a parent assigned it to: it is on their
    /// plan each day. Absent in routines written by hand: assigned to none.
    /// (Left out of the JSON when empty: the window reads a missing list as
    /// none.)
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<String>,
}

/// One node of a routine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RoutineNode {
    /// Unique within the routine; what `next` and branches point at.
    pub id: String,
    #[serde(flatten)]
    pub kind: NodeKind,
    /// The node that follows; absent on `end` and `condition`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
    /// Where the editor drew the node; absent in routines written by hand
    /// (the editor lays those out by depth) and ignored by runs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub position: Option<NodePosition>,
}

/// A node's place on the editor's canvas.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct NodePosition {
    pub x: f64,
    pub y: f64,
}

/// What a node does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum NodeKind {
    /// Where a run begins (exactly one per routine).
    Start,
    /// Where a run ends.
    End,
    /// An agent of the companion's team answers, given `prompt` and the
    /// messages so far; its answer joins the messages.
    Agent { agent: String, prompt: String },
    /// A tool called directly with `args`; its output joins the messages.
    Tool {
        tool: String,
        #[serde(default)]
        #[ts(type = "unknown")]
        args: serde_json::Value,
    },
    /// Picks the first branch whose keyword is in the last message, else
    /// `default`.
    Condition {
        branches: Vec<Branch>,
        #[serde(default)]
        default: Option<String>,
    },
    /// A recitation of a material inside the routine: the run waits until
    /// the child has recited it, then the verdict joins the messages.
    Recite { material: String },
    /// A note to the parent (the routine's messages can be quoted with
    /// `{last}`).
    NotifyParent { message: String },
}

/// One agent of the team or one study tool, as the editor offers it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RoutinePart {
    pub name: String,
    pub description: String,
}

/// What a routine's nodes can name: the team's agents (the lead is
/// `companion`) and the study tools.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RoutineParts {
    pub agents: Vec<RoutinePart>,
    pub tools: Vec<RoutinePart>,
}

/// A condition's branch: when `keyword` is in the last message, go to `to`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct Branch {
    pub keyword: String,
    pub to: String,
}

/// Why a routine cannot be saved: one problem, on one node when it has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RoutineProblem {
    /// A stable code (`routine.no_start`, `routine.cycle`, …).
    pub code: String,
    /// The node it is about, when there is one (the editor marks it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// What is wrong, in plain words.
    pub message: String,
}

/// What a run of a routine reports as it goes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum RoutineEvent {
    NodeStarted {
        run_id: String,
        node: String,
        kind: String,
    },
    NodeOutput {
        run_id: String,
        node: String,
        text: String,
    },
    NodeFinished {
        run_id: String,
        node: String,
    },
    /// The run waits for something outside it (a recitation).
    Waiting {
        run_id: String,
        node: String,
        reason: String,
    },
    Finished {
        run_id: String,
    },
    Failed {
        run_id: String,
        node: String,
        message: String,
    },
}

/// A stored run of a routine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RoutineRunView {
    pub id: String,
    pub routine: String,
    pub input: String,
    /// running | waiting | finished | failed
    pub status: String,
    /// The node the run is at (the next to run, or the one it waits on).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at: Option<String>,
    /// What each node that finished said, in order.
    pub steps: Vec<RoutineStep>,
}

/// One finished node of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema, TS)]
pub struct RoutineStep {
    pub node: String,
    pub output: String,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Routines written before nodes had a place (the CLI's files, the
    /// examples) still load, and are written back without one.
    #[test]
    fn a_node_position_is_optional_and_kept_when_given() {
        let old = r#"{"id":"start","type":"start","next":"end"}"#;
        let node: RoutineNode = serde_json::from_str(old).unwrap();
        assert_eq!(node.position, None);
        assert_eq!(serde_json::to_string(&node).unwrap(), old);

        let placed = RoutineNode {
            position: Some(NodePosition { x: 12.5, y: -40.0 }),
            ..node
        };
        let text = serde_json::to_string(&placed).unwrap();
        assert!(
            text.contains(r#""position":{"x":12.5,"y":-40.0}"#),
            "{text}"
        );
        assert_eq!(serde_json::from_str::<RoutineNode>(&text).unwrap(), placed);
    }
}
