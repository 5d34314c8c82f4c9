//! The family's MCP servers (tool sources a parent adds): stored in the
//! app-wide setting `mcp.servers` (commands and URLs only — a server's
//! bearer token lives in the OS keyring as `mcp:<name>`, never in SQLite),
//! enabled or not, trusted or not, and allowed per profile.
//!
//! Decisions (see `crates/agent/src/mcp.rs` for the client):
//! - a server's tools are named `mcp__<server>__<tool>`;
//! - a child's run gets the tools of the enabled servers allowed for that
//!   child's profile (`deskmate mcp allow --profile P NAME`); a run with no
//!   profile (a parent's own) gets every enabled server's; a new server is
//!   allowed for no child;
//! - calls of an untrusted server's tools wait for a parent's approval, as
//!   a built-in tool named in `approvals` does; `--trusted` lifts that;
//! - each call may take the server's `timeout_secs` (60 s by default);
//! - the servers are started for each run and killed when it ends; a
//!   server that cannot be started is logged and left out, and the run
//!   goes on with the other tools.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use deskmate_agent::mcp::{self, McpConnection, McpServerSpec, McpToolInfo, McpTransport};
use deskmate_agent::tools::Tool;
use deskmate_protocol::mcp::McpToolView;
use deskmate_store::StoreError;
use serde::{Deserialize, Serialize};

use crate::{AppError, AppResult, Deskmate};
use deskmate_secrets::Secret;
use deskmate_store::Store;

/// The setting that holds the servers, by name.
pub const MCP_SERVERS: &str = "mcp.servers";

/// A call's time limit when the server sets none.
pub const DEFAULT_CALL_LIMIT: Duration = deskmate_agent::tools::DEFAULT_TOOL_TIME_LIMIT;

/// An MCP server as stored (and as front ends see it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct McpServer {
    pub name: String,
    pub transport: McpTransport,
    #[serde(default = "yes")]
    pub enabled: bool,
    /// Its tools run without a parent's approval.
    #[serde(default)]
    pub trusted: bool,
    /// The profiles (ids) whose runs may use it.
    #[serde(default)]
    pub profiles: Vec<String>,
    /// How long one call may take, in seconds (60 when unset).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u64>,
    /// A bearer token for it is in the OS keyring (`mcp:<name>`).
    #[serde(default)]
    pub has_token: bool,
}

fn yes() -> bool {
    true
}

impl McpServer {
    /// A new server: enabled, untrusted, allowed for no child.
    pub fn new(name: &str, transport: McpTransport) -> Self {
        Self {
            name: name.to_string(),
            transport,
            enabled: true,
            trusted: false,
            profiles: Vec::new(),
            timeout_secs: None,
            has_token: false,
        }
    }

    fn call_limit(&self) -> Duration {
        self.timeout_secs
            .map(Duration::from_secs)
            .unwrap_or(DEFAULT_CALL_LIMIT)
    }
}

fn failed(e: mcp::McpError) -> AppError {
    match e {
        mcp::McpError::Invalid(m) => AppError::Invalid(m),
        other => AppError::Mcp(other.to_string()),
    }
}

fn token_secret(name: &str) -> Secret {
    Secret::new(format!("mcp:{name}"))
}

/// The servers stored in `store`, by name.
fn load(store: &Store) -> AppResult<BTreeMap<String, McpServer>> {
    store
        .settings()
        .get::<BTreeMap<String, McpServer>>(None, MCP_SERVERS)
        .map_err(|e| {
            AppError::Config(format!(
                "the MCP servers' setting cannot be read ({e}); remove it with `deskmate mcp remove` or add the servers again"
            ))
        })
        .map(Option::unwrap_or_default)
}

fn save(store: &Store, servers: &BTreeMap<String, McpServer>) -> AppResult<()> {
    Ok(store.settings().set(None, MCP_SERVERS, servers)?)
}

/// What a run connects to: the spec (with its token) and the server.
fn spec(server: &McpServer) -> McpServerSpec {
    let bearer_token = if server.has_token {
        match token_secret(&server.name).get() {
            Ok(token) => token,
            Err(e) => {
                // The run goes on without it; the server then refuses and
                // the tool's error says so.
                tracing::warn!("cannot read the MCP server {}'s token: {e}", server.name);
                None
            }
        }
    } else {
        None
    };
    McpServerSpec {
        name: server.name.clone(),
        transport: server.transport.clone(),
        bearer_token,
    }
}

/// The MCP tools for a run of `profile_id` (or a parent's, with `None`),
/// which of them need a parent's approval, and each one's time limit.
#[derive(Default)]
pub(crate) struct RunTools {
    pub tools: Vec<Arc<dyn Tool>>,
    pub approvals: Vec<String>,
    pub limits: Vec<(String, Duration)>,
}

/// Starts the servers a run of `profile_id` may use and lists their tools;
/// a server that fails is logged and left out.
pub(crate) async fn run_tools(store: &Store, profile_id: Option<&str>) -> AppResult<RunTools> {
    let servers: Vec<McpServer> = load(store)?
        .into_values()
        .filter(|s| s.enabled)
        .filter(|s| profile_id.is_none_or(|p| s.profiles.iter().any(|a| a == p)))
        .collect();
    if servers.is_empty() {
        return Ok(RunTools::default());
    }
    let specs: Vec<McpServerSpec> = servers.iter().map(spec).collect();
    let found = mcp::connect_all(&specs, mcp::CONNECT_TIME_LIMIT).await;
    let mut out = RunTools::default();
    for tool in found.tools {
        let name = tool.name().to_string();
        if let Some(server) = servers.iter().find(|s| {
            name.strip_prefix(mcp::TOOL_PREFIX)
                .is_some_and(|rest| rest.starts_with(&format!("{}__", s.name)))
        }) {
            if !server.trusted {
                out.approvals.push(name.clone());
            }
            out.limits.push((name, server.call_limit()));
        }
        out.tools.push(tool);
    }
    Ok(out)
}

impl Deskmate {
    /// The family's MCP servers, by name.
    pub fn mcp_servers(&self) -> AppResult<Vec<McpServer>> {
        Ok(load(self.store())?.into_values().collect())
    }

    /// One server; an unknown name is `not_found` with the names there are.
    pub fn mcp_server(&self, name: &str) -> AppResult<McpServer> {
        let servers = load(self.store())?;
        servers.get(name).cloned().ok_or_else(|| {
            let known: Vec<&str> = servers.keys().map(String::as_str).collect();
            StoreError::NotFound(format!(
                "MCP server {name:?} (the servers are: {})",
                if known.is_empty() {
                    "none yet; add one with `deskmate mcp add`".to_string()
                } else {
                    known.join(", ")
                }
            ))
            .into()
        })
    }

    /// Adds a server; a name already taken is a `conflict`, a bad name or
    /// transport `invalid`; nothing is stored then.
    pub fn add_mcp_server(&self, server: McpServer) -> AppResult<McpServer> {
        mcp::check_server_name(&server.name).map_err(failed)?;
        match &server.transport {
            McpTransport::Stdio { command, .. } if command.trim().is_empty() => {
                return Err(AppError::Invalid(
                    "an MCP server's command cannot be empty".into(),
                ))
            }
            McpTransport::Http { url } if !url.starts_with("http://") => {
                return Err(AppError::Invalid(format!(
                    "an MCP server's URL must start with http:// (https is not supported yet), not {url:?}"
                )))
            }
            _ => {}
        }
        let mut servers = load(self.store())?;
        if servers.contains_key(&server.name) {
            return Err(StoreError::Conflict(format!(
                "there is already an MCP server named {:?}; remove it first or choose another name",
                server.name
            ))
            .into());
        }
        servers.insert(server.name.clone(), server.clone());
        save(self.store(), &servers)?;
        Ok(server)
    }

    /// Removes a server (and its token in the keyring).
    pub fn remove_mcp_server(&self, name: &str) -> AppResult<()> {
        let server = self.mcp_server(name)?;
        let mut servers = load(self.store())?;
        servers.remove(name);
        save(self.store(), &servers)?;
        if server.has_token {
            if let Err(e) = token_secret(name).delete() {
                tracing::warn!("cannot remove the MCP server {name}'s token: {e}");
            }
        }
        Ok(())
    }

    /// Changes a stored server with `change`.
    pub fn update_mcp_server(
        &self,
        name: &str,
        change: impl FnOnce(&mut McpServer),
    ) -> AppResult<McpServer> {
        let mut server = self.mcp_server(name)?;
        change(&mut server);
        let mut servers = load(self.store())?;
        servers.insert(name.to_string(), server.clone());
        save(self.store(), &servers)?;
        Ok(server)
    }

    /// Lets the profile `profile` (id or name) use the server, or no longer.
    pub fn allow_mcp_server(&self, profile: &str, name: &str, allow: bool) -> AppResult<McpServer> {
        let profile = crate::recite::find_profile(self.store(), profile)?;
        self.update_mcp_server(name, |s| {
            s.profiles.retain(|p| *p != profile.id);
            if allow {
                s.profiles.push(profile.id.clone());
            }
        })
    }

    /// Saves a bearer token for the server in the OS keyring.
    pub fn set_mcp_token(&self, name: &str, token: &str) -> AppResult<McpServer> {
        self.mcp_server(name)?;
        token_secret(name)
            .set(token.trim())
            .map_err(|e| AppError::Config(format!("cannot save the token: {e}")))?;
        self.update_mcp_server(name, |s| s.has_token = true)
    }

    /// The server's tools under the names the companion's agents call
    /// them (`mcp__<server>__<tool>`), as the window lists them.
    pub async fn mcp_server_tool_views(&self, name: &str) -> AppResult<Vec<McpToolView>> {
        Ok(self
            .mcp_server_tools(name)
            .await?
            .into_iter()
            .map(|t| McpToolView {
                name: mcp::tool_name(name, &t.name),
                description: t.description,
            })
            .collect())
    }

    /// Starts (or reaches) the server, lists its tools and stops it.
    pub async fn mcp_server_tools(&self, name: &str) -> AppResult<Vec<McpToolInfo>> {
        let server = self.mcp_server(name)?;
        let conn = McpConnection::connect(&spec(&server), mcp::CONNECT_TIME_LIMIT)
            .await
            .map_err(failed)?;
        tokio::time::timeout(mcp::CONNECT_TIME_LIMIT, conn.list_tools())
            .await
            .map_err(|_| {
                AppError::Mcp(format!(
                    "the MCP server {name} did not list its tools within {} s",
                    mcp::CONNECT_TIME_LIMIT.as_secs()
                ))
            })?
            .map_err(failed)
    }
}
