//! `deskmate mcp`: the family's MCP servers, the companion's extra tool
//! sources — add (a stdio command or a streamable HTTP URL), list, connect
//! and list a server's tools, enable or disable, trust, allow per profile,
//! remove. A token goes to the OS keyring, never the database.

use std::collections::BTreeMap;
use std::io::BufRead;
use std::process::ExitCode;

use clap::{ArgGroup, Subcommand};
use deskmate_app::chat::agent::mcp::{tool_name, McpTransport};
use deskmate_app::mcp::McpServer;
use deskmate_app::Deskmate;

use crate::output;

#[derive(Subcommand)]
pub enum McpCmd {
    /// Add a server: a command speaking MCP on stdio, or a streamable HTTP URL.
    #[command(group(ArgGroup::new("transport").required(true).args(["command", "url"])))]
    Add {
        /// The server's name (letters, digits, '-', '_'): its tools are mcp__NAME__TOOL.
        #[arg(long)]
        name: String,
        /// The program to start (e.g. npx or node).
        #[arg(long)]
        command: Option<String>,
        /// An argument of the command (repeat for more).
        #[arg(long = "arg", allow_hyphen_values = true, requires = "command")]
        args: Vec<String>,
        /// An environment variable for the command, KEY=VALUE (repeat; not for secrets).
        #[arg(long = "env", requires = "command")]
        env: Vec<String>,
        /// The server's streamable HTTP endpoint (http://…).
        #[arg(long)]
        url: Option<String>,
        /// Read a bearer token for the URL from standard input (kept in the OS keyring).
        #[arg(long, requires = "url")]
        token_stdin: bool,
        /// Its tools run without a parent's approval.
        #[arg(long)]
        trusted: bool,
        /// How long one call may take, in seconds (default 60).
        #[arg(long)]
        timeout_secs: Option<u64>,
    },
    /// List the servers.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Start (or reach) a server and list its tools.
    Tools {
        name: String,
        #[arg(long)]
        json: bool,
    },
    /// Remove a server (and its token).
    Remove { name: String },
    /// Let a child's companion use a server.
    Allow {
        #[arg(long)]
        profile: String,
        name: String,
    },
    /// No longer let a child's companion use a server.
    Deny {
        #[arg(long)]
        profile: String,
        name: String,
    },
    /// Turn a server on.
    Enable { name: String },
    /// Turn a server off (kept, not started).
    Disable { name: String },
    /// Let a server's tools run without a parent's approval (`--off`: ask again).
    Trust {
        name: String,
        #[arg(long)]
        off: bool,
    },
}

fn transport_words(t: &McpTransport) -> String {
    match t {
        McpTransport::Stdio { command, args, .. } => std::iter::once(command.as_str())
            .chain(args.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" "),
        McpTransport::Http { url } => url.clone(),
    }
}

fn print_server(s: &McpServer) {
    println!(
        "{}\t{}\t{}\t{}\t{} profile(s)\t{}",
        s.name,
        if s.enabled { "enabled" } else { "disabled" },
        if s.trusted {
            "trusted"
        } else {
            "asks a parent"
        },
        match s.transport {
            McpTransport::Stdio { .. } => "stdio",
            McpTransport::Http { .. } => "http",
        },
        s.profiles.len(),
        transport_words(&s.transport)
    );
}

pub fn run(app: &Deskmate, cmd: McpCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        McpCmd::Add {
            name,
            command,
            args,
            env,
            url,
            token_stdin,
            trusted,
            timeout_secs,
        } => {
            let transport = match (command, url) {
                (Some(command), _) => {
                    let mut vars = BTreeMap::new();
                    for kv in env {
                        let Some((k, v)) = kv.split_once('=') else {
                            anyhow::bail!("--env takes KEY=VALUE, not {kv:?}");
                        };
                        vars.insert(k.to_string(), v.to_string());
                    }
                    McpTransport::Stdio {
                        command,
                        args,
                        env: vars,
                    }
                }
                (None, Some(url)) => McpTransport::Http { url },
                (None, None) => anyhow::bail!("give --command CMD or --url URL"),
            };
            let mut server = McpServer::new(&name, transport);
            server.trusted = trusted;
            server.timeout_secs = timeout_secs;
            let server = app.add_mcp_server(server)?;
            if token_stdin {
                let mut token = String::new();
                std::io::stdin().lock().read_line(&mut token)?;
                if token.trim().is_empty() {
                    anyhow::bail!("no token was given on standard input; the server {name} was added without one");
                }
                app.set_mcp_token(&name, &token)?;
            }
            println!(
                "added the MCP server {} ({}); allow it for a child with `deskmate mcp allow --profile P {}`",
                server.name,
                transport_words(&server.transport),
                server.name
            );
        }
        McpCmd::List { json } => {
            let servers = app.mcp_servers()?;
            if json {
                output::json(&servers)?;
            } else if servers.is_empty() {
                println!("no MCP servers; add one with `deskmate mcp add`");
            } else {
                servers.iter().for_each(print_server);
            }
        }
        McpCmd::Tools { name, json } => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            let tools = rt.block_on(app.mcp_server_tools(&name))?;
            if json {
                let named: Vec<serde_json::Value> = tools
                    .iter()
                    .map(|t| {
                        serde_json::json!({
                            "name": tool_name(&name, &t.name),
                            "server_name": t.name,
                            "description": t.description,
                            "input_schema": t.input_schema,
                        })
                    })
                    .collect();
                output::json(&named)?;
            } else {
                for t in &tools {
                    let first = t.description.lines().next().unwrap_or("");
                    println!("{}\t{first}", tool_name(&name, &t.name));
                }
            }
        }
        McpCmd::Remove { name } => {
            app.remove_mcp_server(&name)?;
            println!("removed the MCP server {name}");
        }
        McpCmd::Allow { profile, name } => {
            app.allow_mcp_server(&profile, &name, true)?;
            println!("{profile}'s companion may use the MCP server {name}");
        }
        McpCmd::Deny { profile, name } => {
            app.allow_mcp_server(&profile, &name, false)?;
            println!("{profile}'s companion may no longer use the MCP server {name}");
        }
        McpCmd::Enable { name } => {
            app.update_mcp_server(&name, |s| s.enabled = true)?;
            println!("the MCP server {name} is on");
        }
        McpCmd::Disable { name } => {
            app.update_mcp_server(&name, |s| s.enabled = false)?;
            println!("the MCP server {name} is off");
        }
        McpCmd::Trust { name, off } => {
            app.update_mcp_server(&name, |s| s.trusted = !off)?;
            if off {
                println!("calls of {name}'s tools wait for a parent's approval");
            } else {
                println!("{name}'s tools run without a parent's approval");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
