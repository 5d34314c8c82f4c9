"""A family sync server for the window tests: a throwaway PostgreSQL (initdb
into a temp dir, `pg_ctl` on a free loopback port — as the `postgres` user
through `runuser` when run as root, since PostgreSQL refuses root) and the
real `deskmate-server` binary on it, as crates/testkit/src/postgres.rs does
for the Rust tests. `start()` returns the server; `stop()` ends both and
removes the directory."""
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
import urllib.request

from conftest import REPO, _free_port

PG_BIN = pathlib.Path(os.environ.get("DESKMATE_PG_BIN", "/usr/lib/postgresql/15/bin"))
SERVER = REPO / "target" / "debug" / "deskmate-server"


def _as_owner(tool, *args):
    cmd = [str(PG_BIN / tool), *args]
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


class SyncServer:
    def __init__(self):
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="deskmate-e2e-pg-"))
        self.data = self.dir / "data"
        self.proc = None
        self.url = None

    def start(self):
        if not (PG_BIN / "initdb").exists():
            raise RuntimeError(f"{PG_BIN}/initdb is missing: install PostgreSQL (scripts/lib.sh) or set DESKMATE_PG_BIN")
        if not SERVER.exists():
            raise RuntimeError(f"{SERVER} is missing: build the workspace (cargo test --workspace --all-targets --no-run)")
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        subprocess.run(_as_owner("initdb", "-D", str(self.data), "-A", "trust", "-U", "postgres",
                                 "-E", "UTF8", "--locale=C", "--no-sync"),
                       check=True, capture_output=True)
        pg_port = _free_port()
        subprocess.run(_as_owner("pg_ctl", "-w", "-t", "30", "-D", str(self.data), "-l", str(self.dir / "log"),
                                 "-o", f"-p {pg_port} -k {self.dir} -c listen_addresses=127.0.0.1 "
                                       "-c fsync=off -c synchronous_commit=off", "start"),
                       check=True, capture_output=True)
        port = _free_port()
        self.proc = subprocess.Popen(
            [str(SERVER), "--database-url", f"postgres://postgres@127.0.0.1:{pg_port}/postgres", "--port", str(port)],
            stdout=subprocess.DEVNULL, stderr=open(self.dir / "server.log", "wb"),
        )
        self.url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/ready", timeout=1)
                return self
            except Exception:
                if self.proc.poll() is not None:
                    break
                time.sleep(0.2)
        raise RuntimeError(f"deskmate-server did not get ready: {(self.dir / 'server.log').read_text()}")

    def stop(self):
        if self.proc:
            self.proc.kill()
            self.proc.wait(10)
        subprocess.run(_as_owner("pg_ctl", "stop", "-m", "immediate", "-D", str(self.data)), capture_output=True)
        shutil.rmtree(self.dir, ignore_errors=True)


def start():
    return SyncServer().start()
