//! A throwaway PostgreSQL for the sync server's tests, and the server itself
//! as a real process.
//!
//! [`cluster`] starts one PostgreSQL per test binary (initdb into a temp
//! dir, `pg_ctl -w start` on a free loopback port, about 2–5 s), shared by
//! that binary's tests; each test takes its own database with
//! [`Cluster::database`]. As root (CI) the cluster runs as the `postgres`
//! user through `runuser`, since PostgreSQL refuses to run as root. A small
//! watcher process stops the cluster and deletes its directory when the test
//! binary exits, however it exits.
//!
//! [`SyncServer`] runs `deskmate-server` against a database on a free port
//! and kills it (SIGKILL) when dropped — or earlier, with [`SyncServer::kill`].

use std::io::{BufRead, BufReader};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::OnceLock;

/// Where Debian puts PostgreSQL 15; `DESKMATE_PG_BIN` overrides.
fn pg_bin(tool: &str) -> PathBuf {
    let dir = std::env::var_os("DESKMATE_PG_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/lib/postgresql/15/bin"));
    let path = dir.join(tool);
    assert!(
        path.exists(),
        "{} is missing: install PostgreSQL (apt-get install postgresql, or run scripts/setup.sh) \
         or set DESKMATE_PG_BIN to its bin directory",
        path.display()
    );
    path
}

fn running_as_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

/// A command run as the cluster's owner (`postgres` when we are root).
fn as_owner(tool: &str) -> Command {
    if running_as_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--"]).arg(pg_bin(tool));
        c
    } else {
        Command::new(pg_bin(tool))
    }
}

/// A free loopback port (bound and released; good enough for tests).
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("no free loopback port")
}

/// The running throwaway cluster.
pub struct Cluster {
    pub port: u16,
    dir: PathBuf,
    next_db: AtomicU32,
}

/// Starts the binary's cluster on first use.
pub fn cluster() -> &'static Cluster {
    static CLUSTER: OnceLock<Cluster> = OnceLock::new();
    CLUSTER.get_or_init(start_cluster)
}

fn run(mut c: Command, what: &str) {
    let out = c.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn start_cluster() -> Cluster {
    let dir = tempfile::Builder::new()
        .prefix("deskmate-pg-")
        .tempdir()
        .expect("temp dir")
        .keep();
    if running_as_root() {
        let mut c = Command::new("chown");
        c.args(["-R", "postgres:postgres"]).arg(&dir);
        run(c, "chown the cluster directory to postgres");
    }
    let data = dir.join("data");
    let mut init = as_owner("initdb");
    init.arg("-D").arg(&data).args([
        "-A",
        "trust",
        "-U",
        "postgres",
        "-E",
        "UTF8",
        "--locale=C",
        "--no-sync",
    ]);
    run(init, "initdb");
    let port = free_port();
    let mut start = as_owner("pg_ctl");
    start
        .args(["-w", "-t", "30", "-D"])
        .arg(&data)
        .arg("-l")
        .arg(dir.join("log"))
        .arg("-o")
        .arg(format!(
            "-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off \
             -c synchronous_commit=off -c full_page_writes=off -c max_connections=200",
            dir.display()
        ))
        .arg("start")
        .stdout(Stdio::null());
    run(start, "pg_ctl start");
    watch_and_stop(&dir, &data);
    Cluster {
        port,
        dir,
        next_db: AtomicU32::new(0),
    }
}

/// A detached shell that waits for this test process to end, then stops the
/// cluster and removes its directory. Never waited for: it must outlive us.
#[allow(clippy::zombie_processes)]
fn watch_and_stop(dir: &Path, data: &Path) {
    let pid = std::process::id();
    let stop = if running_as_root() {
        format!(
            "runuser -u postgres -- {} stop -m immediate -D {}",
            pg_bin("pg_ctl").display(),
            data.display()
        )
    } else {
        format!(
            "{} stop -m immediate -D {}",
            pg_bin("pg_ctl").display(),
            data.display()
        )
    };
    let script = format!(
        "while kill -0 {pid} 2>/dev/null; do sleep 0.5; done; {stop} >/dev/null 2>&1; rm -rf {}",
        dir.display()
    );
    Command::new("sh")
        .arg("-c")
        .arg(script)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("start the cluster's watcher");
}

impl Cluster {
    /// A new empty database; returns its URL (as the superuser `postgres`).
    pub fn database(&self) -> String {
        let n = self.next_db.fetch_add(1, Ordering::SeqCst);
        let name = format!("t{}_{n}", std::process::id());
        let mut c = Command::new(pg_bin("psql"));
        c.args([
            "-h",
            "127.0.0.1",
            "-U",
            "postgres",
            "-d",
            "postgres",
            "-q",
            "-c",
        ])
        .arg(format!("CREATE DATABASE {name}"))
        .arg("-p")
        .arg(self.port.to_string());
        run(c, "create a test database");
        self.url(&name)
    }

    /// The URL of database `name` on this cluster.
    pub fn url(&self, name: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// The cluster's directory (socket, log, data).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// `deskmate-server` as a child process.
pub struct SyncServer {
    child: Child,
    /// `http://127.0.0.1:PORT`.
    pub url: String,
    pub port: u16,
}

impl SyncServer {
    /// Starts the server binary at `bin` on `database_url` with extra
    /// arguments, on a free port, and waits until it listens.
    pub fn start(bin: &Path, database_url: &str, extra: &[&str]) -> SyncServer {
        Self::start_on(bin, database_url, free_port(), extra)
    }

    /// As [`SyncServer::start`], on a given port (to restart "the same" server).
    pub fn start_on(bin: &Path, database_url: &str, port: u16, extra: &[&str]) -> SyncServer {
        let mut child = Command::new(bin)
            .args(["--database-url", database_url, "--port", &port.to_string()])
            .args(extra)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap_or_else(|e| panic!("start {}: {e}", bin.display()));
        let stdout = child.stdout.take().expect("server stdout");
        let mut line = String::new();
        BufReader::new(stdout)
            .read_line(&mut line)
            .expect("read the server's first line");
        assert!(
            line.starts_with("listening on "),
            "the server did not start: {line:?}"
        );
        SyncServer {
            child,
            url: format!("http://127.0.0.1:{port}"),
            port,
        }
    }

    /// The server process's id (to read its CPU and memory in /proc).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL, no goodbye.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for SyncServer {
    fn drop(&mut self) {
        self.kill();
    }
}
