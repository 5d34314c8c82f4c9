//! The parent area's MCP servers, the companion's extra tool sources: list,
//! add (a stdio command or a streamable HTTP URL, with an optional bearer
//! token that goes to the OS keyring), allow per child, turn on or off,
//! trust, list a server's tools, remove — the same `Deskmate` calls as
//! `deskmate mcp`.

use deskmate_app::mcp::McpServer;
use deskmate_app::Deskmate;
use deskmate_protocol::mcp::{McpToolView, McpTransport};
use tauri::State;

use super::{blocking, wire, CmdResult};

#[tauri::command]
pub async fn mcp_servers(app: State<'_, Deskmate>) -> CmdResult<Vec<McpServer>> {
    blocking(&app, |app| app.mcp_servers()).await
}

/// Adds a server (enabled, allowed for no child yet); a token, when given,
/// is kept in the OS keyring.
#[tauri::command]
pub async fn mcp_add(
    app: State<'_, Deskmate>,
    name: String,
    transport: McpTransport,
    trusted: bool,
    token: Option<String>,
) -> CmdResult<McpServer> {
    blocking(&app, move |app| {
        let mut server = McpServer::new(&name, transport);
        server.trusted = trusted;
        let server = app.add_mcp_server(server)?;
        match token.as_deref().map(str::trim) {
            Some(t) if !t.is_empty() => app.set_mcp_token(&name, t),
            _ => Ok(server),
        }
    })
    .await
}

#[tauri::command]
pub async fn mcp_remove(app: State<'_, Deskmate>, name: String) -> CmdResult<()> {
    blocking(&app, move |app| app.remove_mcp_server(&name)).await
}

/// Lets the child `profile_id`'s companion use the server, or no longer.
#[tauri::command]
pub async fn mcp_allow(
    app: State<'_, Deskmate>,
    profile_id: String,
    name: String,
    allow: bool,
) -> CmdResult<McpServer> {
    blocking(&app, move |app| {
        app.allow_mcp_server(&profile_id, &name, allow)
    })
    .await
}

#[tauri::command]
pub async fn mcp_set(
    app: State<'_, Deskmate>,
    name: String,
    enabled: bool,
    trusted: bool,
) -> CmdResult<McpServer> {
    blocking(&app, move |app| {
        app.update_mcp_server(&name, |s| {
            s.enabled = enabled;
            s.trusted = trusted;
        })
    })
    .await
}

/// Starts (or reaches) the server and lists its tools.
#[tauri::command]
pub async fn mcp_tools(app: State<'_, Deskmate>, name: String) -> CmdResult<Vec<McpToolView>> {
    app.mcp_server_tool_views(&name).await.map_err(wire)
}
