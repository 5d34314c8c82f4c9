// The real `deskmate` binary for the client library tests: where it is
// (DESKMATE_BIN, else the workspace's debug build), and running it in a
// throwaway data directory the way the Rust CLI tests do
// (crates/testkit/src/cli.rs: `--data-dir`, no DESKMATE_DATA_DIR).

import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";

const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The binary to test; throws with what to do when there is none. */
export function deskmateBinary() {
  const exe = process.platform === "win32" ? "deskmate.exe" : "deskmate";
  const bin = process.env.DESKMATE_BIN || path.join(REPO, "target", "debug", exe);
  if (!existsSync(bin)) {
    throw new Error(
      `no deskmate binary at ${bin}: build it first (cargo build -p deskmate-cli) ` +
        `or point DESKMATE_BIN at one`,
    );
  }
  return bin;
}

/** A fresh data directory, removed by the returned `remove()`. */
export function dataDir() {
  const dir = mkdtempSync(path.join(tmpdir(), "deskmate-clients-"));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * Runs `deskmate --data-dir DIR ARGS…`; resolves to { code, stdout, stderr }
 * (a non-zero exit is a result, not an error). Killed after `timeoutMs`.
 */
export function deskmate(dir, args, { env = {}, timeoutMs = 60_000 } = {}) {
  const bin = deskmateBinary();
  const childEnv = { ...process.env, ...env };
  delete childEnv.DESKMATE_DATA_DIR;
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      ["--data-dir", dir, ...args],
      { env: childEnv, timeout: timeoutMs, killSignal: "SIGKILL", maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error && error.killed) {
          reject(new Error(`deskmate ${args[0]} did not finish in ${timeoutMs} ms\n${stderr}`));
        } else if (error && typeof error.code !== "number") {
          reject(error);
        } else {
          resolve({ code: error ? error.code : 0, stdout, stderr });
        }
      },
    );
  });
}

/**
 * `deskmate chat --events MESSAGE` against a model at `baseUrl`: every AG-UI
 * event of the run, parsed from its JSON lines.
 */
export async function chatEvents(dir, baseUrl, message) {
  const out = await chatRun(dir, baseUrl, message);
  if (out.code !== 0) {
    throw new Error(`deskmate chat exited with ${out.code}:\n${out.stderr}`);
  }
  return out.events;
}

/**
 * `deskmate chat --events MESSAGE` (with `extra` arguments before the
 * message, e.g. `--context JSON`): its exit code, stderr and every AG-UI
 * event; a run that pauses for a parent exits non-zero and is still a result.
 */
export async function chatRun(dir, baseUrl, message, extra = []) {
  const out = await deskmate(
    dir,
    ["chat", "--model", "openai:gpt-4o-mini", "--base-url", baseUrl, "--events", ...extra, message],
    { env: { DESKMATE_LLM_API_KEY: "sk-clients" } },
  );
  return { code: out.code, stderr: out.stderr, events: parseEvents(out.stdout) };
}

function parseEvents(stdout) {
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line, i) => {
      try {
        return JSON.parse(line);
      } catch {
        throw new Error(`line ${i + 1} of deskmate chat --events is not JSON: ${line}`);
      }
    });
}
