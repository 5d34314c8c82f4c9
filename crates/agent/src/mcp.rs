//! MCP servers as tool sources (the Model Context Protocol, client side,
//! through the `rmcp` crate): a server is started as a child process
//! speaking MCP on its stdin/stdout, or reached at a streamable HTTP URL;
//! its tools are listed and each becomes an agent [`Tool`] named
//! `mcp__<server>__<tool>` with the server's own JSON schema.
//!
//! Robustness is the point of this module:
//! - a server that fails to start (no such command, exits at once, never
//!   answers the handshake) is a [`McpError`] in plain words, within
//!   [`CONNECT_TIME_LIMIT`]; the caller leaves its tools out and the other
//!   tools work;
//! - a server that dies during a call answers that call at once with error
//!   text naming the server and how it ended (its last stderr lines), never
//!   a stuck run; a server that hangs is given up by the tool set's time
//!   limit ([`crate::tools::ToolTimeLimits`]);
//! - the child runs in a process group of its own, is started with a
//!   minimal environment (never the app's secrets) and is killed — the
//!   whole group — when the connection is dropped (the run ended), so no
//!   server outlives its run.

mod process;
mod tool;

use std::sync::Arc;
use std::time::Duration;

use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceExt};
use serde_json::Value;

pub use process::ServerProcess;
pub use tool::McpTool;

/// How long starting a server and its handshake may take (an `npx` that
/// has to unpack a package is slow the first time).
pub const CONNECT_TIME_LIMIT: Duration = Duration::from_secs(30);

/// The prefix of every MCP tool's name.
pub const TOOL_PREFIX: &str = "mcp__";

/// How a server is reached: the protocol's type, so front ends see the
/// stored shape.
pub use deskmate_protocol::mcp::McpTransport;

/// A server to connect to, as the caller resolved it (secrets included:
/// this is never stored).
#[derive(Debug, Clone)]
pub struct McpServerSpec {
    /// Letters, digits, `-` and `_`: the middle of its tools' names.
    pub name: String,
    pub transport: McpTransport,
    /// A bearer token for an HTTP server (from the OS keyring).
    pub bearer_token: Option<String>,
}

/// Why a server could not be used.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error("the MCP server {server} could not be started: {reason}")]
    Start { server: String, reason: String },
    #[error("the MCP server {server} did not answer within {secs} s of being started")]
    Timeout { server: String, secs: u64 },
    #[error("the MCP server {server} failed: {reason}")]
    Protocol { server: String, reason: String },
    #[error("{0}")]
    Invalid(String),
}

/// Whether `name` can be a server's name: 1–32 ASCII letters, digits, `-`
/// or `_`, not containing `__` (the separator in tool names).
pub fn check_server_name(name: &str) -> Result<(), McpError> {
    let ok = !name.is_empty()
        && name.len() <= 32
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        && !name.contains("__");
    if ok {
        Ok(())
    } else {
        Err(McpError::Invalid(format!(
            "{name:?} cannot be an MCP server's name: use 1 to 32 letters, digits, '-' or '_' (not '__')"
        )))
    }
}

/// The agent's name for `tool` of `server`: `mcp__<server>__<tool>`, the
/// tool's characters other than letters, digits, `-` and `_` made `_`, cut
/// to 64 characters (what model providers accept).
pub fn tool_name(server: &str, tool: &str) -> String {
    let clean: String = tool
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut name = format!("{TOOL_PREFIX}{server}__{clean}");
    name.truncate(64);
    name
}

/// A tool as the server describes it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct McpToolInfo {
    /// The server's own name for it.
    pub name: String,
    pub description: String,
    /// Its JSON Schema of the arguments.
    pub input_schema: Value,
}

/// A live connection to one server: its MCP session and, for a stdio
/// server, its process. Dropping it ends the session and kills the process.
pub struct McpConnection {
    server: String,
    service: RunningService<RoleClient, ()>,
    process: Option<ServerProcess>,
}

impl std::fmt::Debug for McpConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpConnection")
            .field("server", &self.server)
            .field("pid", &self.pid())
            .finish()
    }
}

impl McpConnection {
    /// Starts (or reaches) the server and does the MCP handshake, within
    /// `limit`.
    pub async fn connect(spec: &McpServerSpec, limit: Duration) -> Result<Self, McpError> {
        check_server_name(&spec.name)?;
        let server = spec.name.clone();
        let timeout = || McpError::Timeout {
            server: server.clone(),
            secs: limit.as_secs().max(1),
        };
        match &spec.transport {
            McpTransport::Stdio { command, args, env } => {
                let (process, stdout, stdin) = ServerProcess::start(&server, command, args, env)?;
                let handshake = ().serve((stdout, stdin));
                let exited = process.exited();
                let service = tokio::select! {
                    r = tokio::time::timeout(limit, handshake) => match r {
                        Ok(Ok(s)) => s,
                        Ok(Err(e)) => {
                            // The handshake failing usually means the process ended.
                            let why = process.ended_in_words().await;
                            return Err(McpError::Start { server, reason: why.unwrap_or_else(|| e.to_string()) });
                        }
                        Err(_) => return Err(timeout()),
                    },
                    why = exited => return Err(McpError::Start { server, reason: why }),
                };
                Ok(Self {
                    server: spec.name.clone(),
                    service,
                    process: Some(process),
                })
            }
            McpTransport::Http { url } => {
                use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
                use rmcp::transport::StreamableHttpClientTransport;
                if !url.starts_with("http://") {
                    return Err(McpError::Invalid(format!(
                        "the MCP server {server}'s address {url:?} must start with http:// (https is not supported yet)"
                    )));
                }
                let mut config = StreamableHttpClientTransportConfig::with_uri(url.as_str());
                config.auth_header = spec.bearer_token.clone();
                let transport = StreamableHttpClientTransport::from_config(config);
                let service = match tokio::time::timeout(limit, ().serve(transport)).await {
                    Ok(Ok(s)) => s,
                    Ok(Err(e)) => {
                        return Err(McpError::Start {
                            server,
                            reason: format!("{url} did not answer as an MCP server ({e})"),
                        })
                    }
                    Err(_) => return Err(timeout()),
                };
                Ok(Self {
                    server: spec.name.clone(),
                    service,
                    process: None,
                })
            }
        }
    }

    pub fn server(&self) -> &str {
        &self.server
    }

    /// The server process's id (stdio servers).
    pub fn pid(&self) -> Option<u32> {
        self.process.as_ref().map(ServerProcess::pid)
    }

    /// The server's tools.
    pub async fn list_tools(&self) -> Result<Vec<McpToolInfo>, McpError> {
        let tools = self
            .with_process_watch(self.service.peer().list_all_tools())
            .await?;
        Ok(tools
            .into_iter()
            .map(|t| {
                let v = serde_json::to_value(&t).unwrap_or(Value::Null);
                let mut schema = v
                    .get("inputSchema")
                    .cloned()
                    .unwrap_or_else(|| serde_json::json!({"type": "object"}));
                if let Some(o) = schema.as_object_mut() {
                    o.remove("$schema");
                    o.entry("type").or_insert_with(|| "object".into());
                }
                McpToolInfo {
                    name: t.name.to_string(),
                    description: t.description.map(|d| d.to_string()).unwrap_or_default(),
                    input_schema: schema,
                }
            })
            .collect())
    }

    /// Calls the server's tool `name` with `arguments`; the result's text
    /// (other content summarised), and whether the server said it failed.
    pub async fn call_tool(
        &self,
        name: &str,
        arguments: serde_json::Map<String, Value>,
    ) -> Result<(String, bool), McpError> {
        let mut params = rmcp::model::CallToolRequestParams::new(name.to_string());
        params.arguments = Some(arguments);
        let result = self
            .with_process_watch(self.service.peer().call_tool(params))
            .await?;
        let v = serde_json::to_value(&result).unwrap_or(Value::Null);
        let is_error = v.get("isError").and_then(Value::as_bool).unwrap_or(false);
        Ok((tool::result_text(&v), is_error))
    }

    /// Runs `request`, answering at once with the process's end when the
    /// server process dies first.
    async fn with_process_watch<T>(
        &self,
        request: impl std::future::Future<Output = Result<T, rmcp::ServiceError>>,
    ) -> Result<T, McpError> {
        let failed = |reason: String| McpError::Protocol {
            server: self.server.clone(),
            reason,
        };
        match &self.process {
            Some(process) => tokio::select! {
                r = request => match r {
                    Ok(v) => Ok(v),
                    Err(e) => Err(failed(match process.ended_in_words().await {
                        Some(why) => why,
                        None => e.to_string(),
                    })),
                },
                why = process.exited() => Err(failed(why)),
            },
            None => request.await.map_err(|e| failed(e.to_string())),
        }
    }

    /// The connection's tools as agent tools.
    pub async fn tools(self: &Arc<Self>) -> Result<Vec<Arc<dyn crate::tools::Tool>>, McpError> {
        let listed = self.list_tools().await?;
        Ok(listed
            .into_iter()
            .map(|info| {
                Arc::new(McpTool::new(Arc::clone(self), info)) as Arc<dyn crate::tools::Tool>
            })
            .collect())
    }
}

/// What connecting to several servers gave: their tools, and each server
/// that could not be used with why.
#[derive(Default)]
pub struct McpTools {
    pub tools: Vec<Arc<dyn crate::tools::Tool>>,
    pub failures: Vec<McpError>,
}

/// Connects to every server at the same time (each within `limit`) and
/// lists their tools; a server that fails is reported, the others' tools
/// are still there.
pub async fn connect_all(specs: &[McpServerSpec], limit: Duration) -> McpTools {
    let attempts = specs.iter().map(|spec| async move {
        let conn = Arc::new(McpConnection::connect(spec, limit).await?);
        match tokio::time::timeout(limit, conn.tools()).await {
            Ok(r) => r,
            Err(_) => Err(McpError::Timeout {
                server: spec.name.clone(),
                secs: limit.as_secs().max(1),
            }),
        }
    });
    let mut out = McpTools::default();
    for r in futures_util::future::join_all(attempts).await {
        match r {
            Ok(tools) => out.tools.extend(tools),
            Err(e) => {
                tracing::warn!("{e}");
                out.failures.push(e);
            }
        }
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn names_are_checked_and_tools_namespaced() {
        assert!(check_server_name("everything").is_ok());
        assert!(check_server_name("my_fs-2").is_ok());
        for bad in ["", "a__b", "has space", "点", &"x".repeat(33)] {
            assert!(check_server_name(bad).is_err(), "{bad:?}");
        }
        assert_eq!(tool_name("fs", "read_file"), "mcp__fs__read_file");
        assert_eq!(tool_name("e", "get-sum"), "mcp__e__get-sum");
        assert_eq!(tool_name("e", "a.b c"), "mcp__e__a_b_c");
        assert_eq!(tool_name("e", &"t".repeat(100)).len(), 64);
    }
}
