//! `deskmate account`, `deskmate devices` and `deskmate sync`: this device's
//! place in the family's sync (crates/sync, the server in `server/`). Tokens
//! go to the OS keyring, never the database or the output.

use std::process::ExitCode;

use clap::Subcommand;
use deskmate_app::Deskmate;
use deskmate_protocol::sync::{AcceptRequest, LoginRequest, PairRequest, SignedIn, SignupRequest};
use deskmate_sync::background::{Cadence, Round};
use deskmate_sync::{KeyringVault, Sync};

use crate::output;

#[derive(Subcommand)]
pub enum AccountCmd {
    /// Create a parent account (and the family) on a sync server; signs this device in.
    Signup {
        #[arg(long)]
        server: String,
        #[arg(long)]
        email: String,
        #[arg(long, env = "DESKMATE_PASSWORD", hide_env_values = true)]
        password: String,
        /// The family's name (defaults to the email's name).
        #[arg(long)]
        family: Option<String>,
        /// What this device is called in the device list.
        #[arg(long, default_value = "desktop")]
        device_name: String,
        #[arg(long)]
        json: bool,
    },
    /// Sign this device in with a parent's account.
    Login {
        #[arg(long)]
        server: String,
        #[arg(long)]
        email: String,
        #[arg(long, env = "DESKMATE_PASSWORD", hide_env_values = true)]
        password: String,
        #[arg(long, default_value = "desktop")]
        device_name: String,
        #[arg(long)]
        json: bool,
    },
    /// The family's owner invites a second parent by email; prints the
    /// one-time code (7 days) to pass on to them.
    Invite {
        #[arg(long)]
        email: String,
        #[arg(long)]
        json: bool,
    },
    /// The family's invitations: to whom, until when, whether accepted.
    Invitations {
        #[arg(long)]
        json: bool,
    },
    /// Join a family as its second parent with the code of an invitation to
    /// this email (a new account, or yours if it is alone in a family of its
    /// own with nothing synced); signs this device in.
    Accept {
        /// The invitation's code (XXXX-XXXX-XXXX).
        code: String,
        #[arg(long)]
        server: String,
        #[arg(long)]
        email: String,
        #[arg(long, env = "DESKMATE_PASSWORD", hide_env_values = true)]
        password: String,
        #[arg(long, default_value = "desktop")]
        device_name: String,
        #[arg(long)]
        json: bool,
    },
    /// Sign this device out (the server ends the session); sync turns off.
    Logout,
    /// Who this device is signed in as, and its sync state.
    Status {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub enum DevicesCmd {
    /// On a parent's device: show a one-time code. On the child's device:
    /// `--code C --server URL` joins the family with it.
    Pair {
        #[arg(long)]
        code: Option<String>,
        #[arg(long)]
        server: Option<String>,
        #[arg(long, default_value = "tablet")]
        device_name: String,
        #[arg(long)]
        json: bool,
    },
    /// The family's devices.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Remove a device from the family (it is signed out at once).
    Remove { id: String },
}

#[derive(Subcommand)]
pub enum SyncCmd {
    /// Push this device's changes and pull the family's, now.
    Now {
        #[arg(long)]
        json: bool,
    },
    /// Whether sync is on, what waits in the outbox, when it last synced.
    Status {
        #[arg(long)]
        json: bool,
    },
    /// A parent turns sync on (what exists is queued once).
    On {
        /// Let recitation transcripts sync too (off by default).
        #[arg(long)]
        transcripts: bool,
    },
    /// Turn sync off; nothing is sent or received.
    Off,
    /// Keep this device in step until stopped (Ctrl-C): a change goes out
    /// within seconds, the family's are pulled every few minutes, and while
    /// the server cannot be reached the tries back off (30 s doubling to 30 min).
    Run {
        /// One line of JSON per round instead of words.
        #[arg(long)]
        json: bool,
    },
}

/// What signing up, in or joining prints: the family and device as JSON,
/// or `words` (which name the family).
fn print_signed_in(t: &SignedIn, json: bool, words: String) -> anyhow::Result<()> {
    if json {
        output::json(t)?;
    } else {
        println!("{words}");
    }
    Ok(())
}

pub fn run_account(app: &Deskmate, cmd: AccountCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        AccountCmd::Signup {
            server,
            email,
            password,
            family,
            device_name,
            json,
        } => {
            let t = app.sync_signup(
                &server,
                SignupRequest {
                    email,
                    password,
                    family_name: family,
                    device_name,
                },
            )?;
            let words = format!(
                "signed up; family {} — turn sync on with `deskmate sync on`",
                t.family_id
            );
            print_signed_in(&t, json, words)?;
        }
        AccountCmd::Login {
            server,
            email,
            password,
            device_name,
            json,
        } => {
            let t = app.sync_login(
                &server,
                LoginRequest {
                    email,
                    password,
                    device_name,
                },
            )?;
            let words = format!("signed in; family {}", t.family_id);
            print_signed_in(&t, json, words)?;
        }
        AccountCmd::Invite { email, json } => {
            let inv = app.sync_invite(&email)?;
            if json {
                output::json(&inv)?;
            } else {
                println!(
                    "invitation for {} (until {}): on their device they run",
                    inv.email, inv.expires_at
                );
                println!(
                    "  deskmate account accept {} --server URL --email {}",
                    inv.code.unwrap_or_default(),
                    inv.email
                );
            }
        }
        AccountCmd::Invitations { json } => {
            let list = app.sync_invitations()?;
            if json {
                output::json(&list)?;
            } else {
                for i in list {
                    let state = match i.accepted_at {
                        Some(at) => format!("accepted {at}"),
                        None => format!("open until {}", i.expires_at),
                    };
                    println!("{}  {} ({state})", i.id, i.email);
                }
            }
        }
        AccountCmd::Accept {
            code,
            server,
            email,
            password,
            device_name,
            json,
        } => {
            let t = app.sync_accept(
                &server,
                AcceptRequest {
                    code,
                    email,
                    password,
                    device_name,
                },
            )?;
            let words = format!(
                "joined family {} as a parent — turn sync on with `deskmate sync on`",
                t.family_id
            );
            print_signed_in(&t, json, words)?;
        }
        AccountCmd::Logout => {
            app.sync_logout()?;
            println!("signed out; sync is off");
        }
        AccountCmd::Status { json } => {
            let local = app.sync_status()?.state;
            let remote = if local.server_url.is_some() {
                Some(app.sync_account())
            } else {
                None
            };
            if json {
                let account = match &remote {
                    Some(Ok(a)) => serde_json::to_value(a)?,
                    Some(Err(e)) => serde_json::json!({"error": e.to_string()}),
                    None => serde_json::Value::Null,
                };
                output::json(&serde_json::json!({"sync": local, "account": account}))?;
            } else {
                match remote {
                    None => println!("not signed in"),
                    Some(Ok(a)) => println!(
                        "signed in to {} as {}{} (family {}, this device {})",
                        local.server_url.unwrap_or_default(),
                        a.email.unwrap_or_else(|| "a paired device".into()),
                        a.role.map(|r| format!(", {r}")).unwrap_or_default(),
                        a.family_name,
                        a.device_id
                    ),
                    Some(Err(e)) => println!("signed in, but the server says: {e}"),
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_devices(app: &Deskmate, cmd: DevicesCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        DevicesCmd::Pair {
            code: None, json, ..
        } => {
            let code = app.sync_pairing_code()?;
            if json {
                output::json(&code)?;
            } else {
                println!(
                    "pairing code {} (until {}): on the child's device run",
                    code.code, code.expires_at
                );
                println!("  deskmate devices pair --server URL --code {}", code.code);
            }
        }
        DevicesCmd::Pair {
            code: Some(code),
            server,
            device_name,
            json,
        } => {
            let server =
                server.ok_or_else(|| anyhow::anyhow!("joining with a code needs --server URL"))?;
            let t = app.sync_pair(&server, PairRequest { code, device_name })?;
            let words = format!("paired; this device joined family {}", t.family_id);
            print_signed_in(&t, json, words)?;
        }
        DevicesCmd::List { json } => {
            let list = app.sync_devices()?;
            if json {
                output::json(&list)?;
            } else {
                for d in list {
                    let seen = d.last_seen_at.unwrap_or_else(|| "never".into());
                    println!("{}  {} ({}), last seen {seen}", d.id, d.name, d.kind);
                }
            }
        }
        DevicesCmd::Remove { id } => {
            app.sync_remove_device(&id)?;
            println!("removed {id}");
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub fn run_sync(app: &Deskmate, cmd: SyncCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        SyncCmd::Now { json } => {
            let report = app.sync_now()?;
            if json {
                output::json(&report)?;
            } else {
                println!(
                    "sent {} change(s) ({} already there), applied {} from the family",
                    report.pushed, report.duplicates, report.applied
                );
            }
        }
        SyncCmd::Status { json } => {
            let s = app.sync_status()?.state;
            if json {
                output::json(&s)?;
            } else {
                println!(
                    "sync {}; {} change(s) waiting; last synced {}{}",
                    if s.enabled { "on" } else { "off" },
                    s.pending,
                    s.last_sync_at.as_deref().unwrap_or("never"),
                    s.last_error
                        .as_deref()
                        .map(|e| format!("; last error: {e}"))
                        .unwrap_or_default()
                );
                if let Some(b) = s.background {
                    println!(
                        "in the background (the window or `deskmate serve`): {} at {}{}",
                        b.round,
                        b.at.as_deref().unwrap_or("?"),
                        match (b.error, b.retry_in_ms) {
                            (Some(e), Some(ms)) => format!(" ({e}; next try in {} s)", ms / 1000),
                            (Some(e), None) => format!(" ({e})"),
                            _ => format!(": sent {}, applied {}", b.pushed, b.applied),
                        }
                    );
                }
            }
        }
        SyncCmd::On { transcripts } => {
            let queued = app.sync_on(transcripts)?;
            println!("sync is on; {queued} existing record(s) queued");
        }
        SyncCmd::Off => {
            app.sync_off()?;
            println!("sync is off");
        }
        SyncCmd::Run { json } => {
            let sync = Sync::new(app.store().clone(), KeyringVault);
            let rounds = deskmate_sync::background::run(&sync, Cadence::default(), |round| {
                print_round(&round, json)
            });
            crate::runtime()?.block_on(async {
                tokio::select! {
                    () = rounds => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
            });
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One line per background round: what went, what came, or why not.
fn print_round(round: &Round, json: bool) {
    let line = match (round, json) {
        (Round::Synced(r), true) => serde_json::json!({"round": "synced", "report": r}).to_string(),
        (Round::Idle(e), true) => {
            serde_json::json!({"round": "idle", "why": e.to_string()}).to_string()
        }
        (
            Round::Failed {
                error,
                failures,
                retry_in,
            },
            true,
        ) => serde_json::json!({
            "round": "failed",
            "error": error.to_string(),
            "failures": failures,
            "retry_in_ms": u64::try_from(retry_in.as_millis()).unwrap_or(u64::MAX),
        })
        .to_string(),
        (Round::Synced(r), false) => format!(
            "synced: sent {} change(s), applied {} from the family",
            r.pushed, r.applied
        ),
        (Round::Idle(e), false) => format!("waiting: {e}"),
        (
            Round::Failed {
                error,
                failures,
                retry_in,
            },
            false,
        ) => format!(
            "not synced ({failures} in a row): {error}; trying again in {} s",
            retry_in.as_secs()
        ),
    };
    println!("{line}");
}
