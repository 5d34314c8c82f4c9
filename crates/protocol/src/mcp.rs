//! The family's MCP servers as front ends see them: how a server is
//! reached (a stdio command or a streamable HTTP URL — also the stored
//! shape, `deskmate_agent::mcp` re-exports it) and the tools a server
//! offers, under the names the companion's agents call them.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// How a server is reached.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum McpTransport {
    /// A command started as a child process, speaking MCP on stdin/stdout.
    Stdio {
        command: String,
        #[serde(default)]
        args: Vec<String>,
        /// Variables added to the child's minimal environment.
        #[serde(default)]
        env: BTreeMap<String, String>,
    },
    /// A streamable HTTP endpoint (`http://…`).
    Http { url: String },
}

/// One tool of a server, as the companion's agents see it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct McpToolView {
    /// `mcp__<server>__<tool>`.
    pub name: String,
    pub description: String,
}
