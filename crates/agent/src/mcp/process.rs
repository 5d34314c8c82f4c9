//! A stdio MCP server's process: started in a process group of its own
//! with a minimal environment, its stderr kept (the last lines say why it
//! failed), watched for its end, and killed — the whole group — when
//! dropped.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::{ChildStdin, ChildStdout, Command};
use tokio::sync::{oneshot, watch};

use super::McpError;

/// The variables of the app's environment a server gets (the rest —
/// API keys among them — never reach it); the server's own `env` is added.
const PASSED_ENV: [&str; 20] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "TERM",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TMPDIR",
    "TEMP",
    "TMP",
    "XDG_RUNTIME_DIR",
    "SYSTEMROOT",
    "APPDATA",
    "LOCALAPPDATA",
    "USERPROFILE",
    "PROGRAMFILES",
    "COMSPEC",
    "PATHEXT",
];

/// How much of the server's stderr is kept.
const STDERR_KEPT: usize = 2000;

/// A running server process. Dropping it kills the process group.
#[derive(Debug)]
pub struct ServerProcess {
    pid: u32,
    ended: watch::Receiver<Option<String>>,
    kill: Option<oneshot::Sender<()>>,
}

impl ServerProcess {
    /// Starts `command args…` for the server `server`; its stdout and
    /// stdin carry MCP.
    pub(super) fn start(
        server: &str,
        command: &str,
        args: &[String],
        env: &BTreeMap<String, String>,
    ) -> Result<(Self, ChildStdout, ChildStdin), McpError> {
        let mut cmd = Command::new(command);
        cmd.args(args)
            .env_clear()
            .envs(
                PASSED_ENV
                    .iter()
                    .filter_map(|k| std::env::var(k).ok().map(|v| (*k, v))),
            )
            .envs(env)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        let failed = |reason: String| McpError::Start {
            server: server.to_string(),
            reason,
        };
        let mut child = cmd.spawn().map_err(|e| {
            failed(if e.kind() == std::io::ErrorKind::NotFound {
                format!(
                    "there is no program {command:?} (check the command and that it is installed)"
                )
            } else {
                format!("{command:?} cannot be run: {e}")
            })
        })?;
        let pid = child.id().unwrap_or(0);
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(failed("its input and output could not be connected".into()));
        };
        // The last of stderr, read all along so a chatty server never blocks.
        let tail = Arc::new(Mutex::new(String::new()));
        if let Some(mut stderr) = child.stderr.take() {
            let tail = Arc::clone(&tail);
            tokio::spawn(async move {
                let mut buf = [0u8; 1024];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 {
                        break;
                    }
                    if let Ok(mut t) = tail.lock() {
                        t.push_str(&String::from_utf8_lossy(&buf[..n]));
                        if t.len() > STDERR_KEPT {
                            let mut cut = t.len() - STDERR_KEPT;
                            while !t.is_char_boundary(cut) {
                                cut += 1;
                            }
                            t.drain(..cut);
                        }
                    }
                }
            });
        }
        let (ended_tx, ended) = watch::channel(None);
        let (kill_tx, kill_rx) = oneshot::channel::<()>();
        tokio::spawn(async move {
            let words = tokio::select! {
                status = child.wait() => {
                    // Let the stderr reader catch the last lines.
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    let how = match status {
                        Ok(s) => ended_how(s),
                        Err(e) => format!("it could not be watched ({e})"),
                    };
                    let said = tail.lock().map(|t| t.trim().to_string()).unwrap_or_default();
                    if said.is_empty() { how } else { format!("{how}; it said: {said}") }
                }
                _ = kill_rx => {
                    kill_group(pid);
                    let _ = child.kill().await;
                    "it was stopped".to_string()
                }
            };
            let _ = ended_tx.send(Some(words));
        });
        Ok((
            Self {
                pid,
                ended,
                kill: Some(kill_tx),
            },
            stdout,
            stdin,
        ))
    }

    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// Waits for the process to end; how it ended, in words.
    pub async fn exited(&self) -> String {
        let mut rx = self.ended.clone();
        loop {
            if let Some(words) = rx.borrow_and_update().clone() {
                return format!("the server process ended: {words}");
            }
            if rx.changed().await.is_err() {
                return "the server process ended".to_string();
            }
        }
    }

    /// How the process ended, if it has or does within a moment (a broken
    /// connection is usually a process that just died).
    pub async fn ended_in_words(&self) -> Option<String> {
        tokio::time::timeout(Duration::from_millis(500), self.exited())
            .await
            .ok()
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        if self.ended.borrow().is_none() {
            // At once, here: the watcher may never run again when the
            // runtime is shutting down (then the child's kill_on_drop does).
            kill_group(self.pid);
        }
        if let Some(kill) = self.kill.take() {
            let _ = kill.send(());
        }
    }
}

/// Kills the process group `pid` leads (the server and anything it started).
fn kill_group(pid: u32) {
    #[cfg(unix)]
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        if pid > 0 {
            // SAFETY: killpg only sends a signal; a group already gone is ESRCH.
            unsafe {
                libc::killpg(pid, libc::SIGKILL);
            }
        }
    }
    #[cfg(not(unix))]
    let _ = pid;
}

fn ended_how(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("it exited with status {code}");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("it was killed (signal {signal})");
        }
    }
    "it exited".to_string()
}
