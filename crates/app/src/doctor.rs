//! `deskmate doctor`: one line per thing Deskmate depends on, saying whether
//! it is there and, when it is not, what to do. Nothing here panics or
//! stops at the first problem: every check reports — even when the data
//! directory cannot be used ([`check_all`] makes that the `data` check's
//! FAIL and runs the rest).

use std::path::Path;

use deskmate_speech::models::{sha256_file, Manifest, ModelEntry};
use serde::{Deserialize, Serialize};

use deskmate_secrets::{Secret, SecretError};

use crate::{AppError, AppResult, Config, Deskmate};

/// Environment variable that overrides the LLM API key (headless use).
pub use deskmate_llm::API_KEY_ENV as LLM_KEY_ENV;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Ok,
    Warn,
    Fail,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Check {
    pub name: String,
    pub status: Status,
    pub detail: String,
    pub fix: Option<String>,
}

impl Check {
    fn ok(name: &str, detail: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            status: Status::Ok,
            detail: detail.into(),
            fix: None,
        }
    }
    fn warn(name: &str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            status: Status::Warn,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
    fn fail(name: &str, detail: impl Into<String>, fix: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            status: Status::Fail,
            detail: detail.into(),
            fix: Some(fix.into()),
        }
    }
}

/// The model manifest (`models/manifest.toml`): parsed once, by the speech
/// crate that also fetches what it lists.
pub fn manifest() -> Result<Manifest, String> {
    Manifest::embedded().map_err(|e| format!("models/manifest.toml is damaged: {e}"))
}

/// Runs every check for a configuration, whether or not Deskmate can open its
/// data directory: if it cannot (not writable, a database from a newer
/// Deskmate…), the `data` check fails with the fix and every other check
/// still runs. Opening leaves a refused database untouched.
pub fn check_all(config: &Config) -> Vec<Check> {
    match Deskmate::open(config.clone()) {
        Ok(app) => app.doctor(),
        Err(e) => {
            let llm = Check::warn(
                "llm",
                "the LLM settings are kept in the database, which could not be opened",
                "fix the data check first, then run `deskmate doctor` again",
            );
            other_checks(data_failure(config, &e), &config.models_dir, llm)
        }
    }
}

/// The `data` check's FAIL line for a data directory Deskmate could not open.
fn data_failure(config: &Config, e: &AppError) -> Check {
    let dir = config.data_dir.display();
    let fix = match e.code() {
        "db.schema_too_new" => {
            "update Deskmate to its newest version (the database was left untouched), or pass --data-dir to use another folder"
                .to_string()
        }
        "data_dir.unusable" | "data_dir.not_writable" => format!(
            "make {dir} writable for your user (e.g. `chmod u+w {dir}`, or `sudo chown -R \"$USER\" {dir}` if another user owns it), \
             or pick another folder with --data-dir or DESKMATE_DATA_DIR"
        ),
        "db.not_deskmate" => format!(
            "move {} aside (it is not a Deskmate database), or pick another folder with --data-dir",
            config.database_path().display()
        ),
        "db.damaged" => format!(
            "restore {db} from a backup, or move it aside (keep the copy: `sqlite3 FILE .recover` may rescue its records) and Deskmate starts a new one; \
             or pick another folder with --data-dir",
            db = config.database_path().display()
        ),
        _ => "read the message above; if it names a folder or file, fix it or pick another folder with --data-dir or DESKMATE_DATA_DIR".to_string(),
    };
    let detail = match e {
        // This one names the directory already.
        AppError::DataDir { .. } => e.to_string(),
        _ => format!("data directory {dir}: {e}"),
    };
    Check::fail("data", detail, fix)
}

/// Every check after `data`, in the order they are printed.
/// `detail`, then each file skipped and why.
fn skipped<'a>(detail: &str, problems: impl Iterator<Item = (&'a String, &'a String)>) -> String {
    let listed: Vec<String> = problems
        .map(|(origin, reason)| format!("{origin} ({reason})"))
        .collect();
    format!("{detail}; skipped: {}", listed.join("; "))
}

fn other_checks(data: Check, models_dir: &Path, llm: Check) -> Vec<Check> {
    let mut checks = vec![data];
    checks.extend(check_audio());
    checks.extend(check_models(models_dir));
    checks.push(check_keyring());
    checks.push(check_serial());
    checks.push(llm);
    checks
}

fn check_models(models_dir: &Path) -> Vec<Check> {
    let manifest = match manifest() {
        Ok(m) => m,
        Err(e) => {
            return vec![Check::fail(
                "models",
                e,
                "restore models/manifest.toml from the repository",
            )]
        }
    };
    manifest
        .model
        .iter()
        .map(|m| check_model(models_dir, m))
        .collect()
}

impl Deskmate {
    /// Each model of the manifest and whether it is installed (the
    /// window's settings and `deskmate models status`).
    pub fn models_status(&self) -> AppResult<Vec<deskmate_protocol::ModelStatus>> {
        let manifest = manifest().map_err(AppError::Config)?;
        Ok(manifest
            .model
            .iter()
            .map(|m| {
                let check = check_model(&self.config().models_dir, m);
                deskmate_protocol::ModelStatus {
                    present: check.status == Status::Ok,
                    detail: check.detail,
                    name: m.name.clone(),
                    purpose: m.purpose.clone(),
                }
            })
            .collect())
    }

    /// Runs every check against this (open) data directory.
    pub fn doctor(&self) -> Vec<Check> {
        let mut checks = other_checks(
            self.check_data(),
            &self.config().models_dir,
            self.check_llm(),
        );
        checks.push(self.check_team());
        checks.push(self.check_skills());
        checks
    }

    /// The companion's team from `agents/`: the lead and its subagents.
    fn check_team(&self) -> Check {
        let team = self.chat().team();
        let lead = if team.lead.is_some() {
            "the lead"
        } else {
            "no lead"
        };
        let detail = format!("{lead} and {} subagents", team.subagents().count());
        match team.problems() {
            [] if team.lead.is_some() => Check::ok("agents", detail),
            [] => Check::warn(
                "agents",
                detail,
                "restore agents/AGENTS.md from the repository and rebuild",
            ),
            problems => Check::warn(
                "agents",
                skipped(&detail, problems.iter().map(|p| (&p.origin, &p.reason))),
                "fix the frontmatter of the files named (name, description, tools) and rebuild",
            ),
        }
    }

    /// The skills: bundled ones and a parent's, and any skipped.
    fn check_skills(&self) -> Check {
        let lib = self.chat().skills();
        let parents = lib
            .skills()
            .filter(|s| matches!(s.source, deskmate_agent::skills::SkillSource::Parent(_)))
            .count();
        let detail = format!(
            "{} skills ({parents} of them a parent's, from {})",
            lib.skills().count(),
            self.chat().parent_skills_dir().display()
        );
        match lib.problems() {
            [] => Check::ok("skills", detail),
            problems => Check::warn(
                "skills",
                skipped(&detail, problems.iter().map(|p| (&p.origin, &p.reason))),
                "give each SKILL.md a frontmatter with name (its folder's name: lowercase letters, digits, hyphens) and description, then a body",
            ),
        }
    }

    fn check_data(&self) -> Check {
        let dir = self.config().data_dir.display().to_string();
        match self.store().schema_version() {
            Ok(v) => Check::ok(
                "data",
                format!(
                    "data directory {dir}, schema version {v} (this build knows {})",
                    deskmate_store::schema_version_known()
                ),
            ),
            Err(e) => data_failure(self.config(), &AppError::Store(e)),
        }
    }

    fn check_llm(&self) -> Check {
        let model: Option<String> = self
            .store()
            .settings()
            .get(None, crate::settings::LLM_MODEL)
            .ok()
            .flatten();
        let Some(model) = model else {
            return Check::warn(
                "llm",
                "no LLM provider configured: recitation, reviews and reports work offline; chat and AI tips are off",
                "set one in Parent area → Settings, or `deskmate llm set --model openai:gpt-4o-mini --base-url URL`",
            );
        };
        let provider = model.split(':').next().unwrap_or_default().to_string();
        if std::env::var_os(LLM_KEY_ENV).is_some() {
            return Check::ok("llm", format!("model {model}; API key from {LLM_KEY_ENV}"));
        }
        match crate::chat::key_store().stored(&provider) {
            Ok(Some(_)) => Check::ok("llm", format!("model {model}; API key in the OS keyring")),
            Ok(None) if provider == "ollama" => Check::ok(
                "llm",
                format!("model {model}; no API key needed for a local Ollama"),
            ),
            Err(e @ SecretError::Silent(_)) => Check::warn(
                "llm",
                format!("model {model} is configured; {e}"),
                format!("unlock your login keyring, or set {LLM_KEY_ENV}"),
            ),
            Ok(None) | Err(SecretError::Unusable(_)) => Check::warn(
                "llm",
                format!("model {model} is configured but no API key was found"),
                format!("save the key in Parent area → Settings, or set {LLM_KEY_ENV}"),
            ),
        }
    }
}

fn check_model(dir: &Path, m: &ModelEntry) -> Check {
    let mut problems = Vec::new();
    let mut found = Vec::new();
    for f in &m.files {
        let path = dir.join(&f.path);
        match sha256_file(&path) {
            Ok(sum) if sum.eq_ignore_ascii_case(&f.sha256) => {
                found.push(format!("{} sha256 {}…", f.path, &sum[..12]))
            }
            Ok(sum) => problems.push(format!(
                "{} has sha256 {sum}, expected {}",
                f.path, f.sha256
            )),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                problems.push(format!("{} missing", path.display()))
            }
            Err(e) => problems.push(format!("{} unreadable: {e}", path.display())),
        }
    }
    if problems.is_empty() {
        Check::ok(&m.name, format!("{}: {}", m.purpose, found.join(", ")))
    } else {
        Check::warn(
            &m.name,
            format!("{}: {}", m.purpose, problems.join("; ")),
            "run `deskmate models fetch` (the setup scripts do this)",
        )
    }
}

fn check_audio() -> Vec<Check> {
    use cpal::traits::{DeviceTrait, HostTrait};
    let host = cpal::default_host();
    let name = |d: Option<cpal::Device>| {
        d.map(|d| {
            d.description()
                .map(|x| x.name().to_string())
                .unwrap_or_else(|_| "unnamed device".into())
        })
    };
    let input = match name(host.default_input_device()) {
        Some(n) => Check::ok("audio input", format!("microphone: {n}")),
        None => Check::warn(
            "audio input",
            "no microphone found: voice recitation is off (typed 默写 still works)",
            "plug in a microphone or the lamp; on Linux check `arecord -l` and that PulseAudio/PipeWire runs",
        ),
    };
    let output = match name(host.default_output_device()) {
        Some(n) => Check::ok("audio output", format!("speaker: {n}")),
        None => Check::warn(
            "audio output",
            "no speaker found: feedback is shown but not spoken",
            "plug in speakers or headphones; on Linux check `aplay -l`",
        ),
    };
    vec![input, output]
}

/// Stores, reads back and removes a probe entry. Each keyring call gives
/// up after `deskmate_secrets::LIMIT`: a locked keyring waits on an unlock
/// prompt, and the doctor, whose job is to say what is wrong, must not hang
/// with it.
fn check_keyring() -> Check {
    let probe = || -> Result<(), SecretError> {
        let secret = Secret::new("doctor-check");
        secret.set("ok")?;
        let back = secret.get()?;
        secret.delete()?;
        match back.as_deref() {
            Some("ok") => Ok(()),
            _ => Err(SecretError::Unusable(
                "what was stored read back differently".into(),
            )),
        }
    };
    let fix = format!(
        "unlock your login keyring (GNOME Keyring/KWallet on Linux), or set {LLM_KEY_ENV} for headless use"
    );
    match probe() {
        Ok(()) => Check::ok("keyring", "OS keyring stores and reads secrets"),
        Err(e @ SecretError::Silent(_)) => Check::warn("keyring", e.to_string(), fix),
        Err(e) => Check::warn("keyring", format!("{e}: API keys cannot be saved"), fix),
    }
}

fn check_serial() -> Check {
    match serialport::available_ports() {
        Ok(ports) if ports.is_empty() => {
            Check::ok("serial", "no serial ports seen (no lamp plugged in)")
        }
        Ok(ports) => {
            let names: Vec<String> = ports.iter().map(|p| p.port_name.clone()).collect();
            Check::ok("serial", format!("serial ports: {}", names.join(", ")))
        }
        Err(e) => Check::warn(
            "serial",
            format!("cannot list serial ports: {e}"),
            "check USB permissions (the dialout group on Linux)",
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;
    use deskmate_speech::models::ModelFile;

    #[test]
    fn every_check_explains_itself() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::in_dir(dir.path());
        config.models_dir = dir.path().join("no-models-here");
        let app = Deskmate::open(config).unwrap();
        let checks = app.doctor();
        let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
        for expected in [
            "data",
            "audio input",
            "audio output",
            "keyring",
            "serial",
            "llm",
        ] {
            assert!(
                names.contains(&expected),
                "missing check {expected}: {names:?}"
            );
        }
        assert_eq!(checks[0].status, Status::Ok);
        for c in &checks {
            assert!(!c.detail.is_empty());
            if c.status != Status::Ok {
                assert!(
                    c.fix.as_deref().is_some_and(|f| !f.is_empty()),
                    "{} has no fix",
                    c.name
                );
            }
        }
        // With no models directory, every manifest entry is reported missing with the fetch command.
        for m in manifest().unwrap().model {
            let c = checks.iter().find(|c| c.name == m.name).unwrap();
            assert_eq!(c.status, Status::Warn);
            assert!(c.detail.contains("missing"));
        }
    }

    #[test]
    fn a_database_from_a_newer_deskmate_fails_the_data_check_only() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::in_dir(dir.path());
        drop(Deskmate::open(config.clone()).unwrap());
        let conn = rusqlite::Connection::open(config.database_path()).unwrap();
        conn.pragma_update(None, "user_version", 999).unwrap();
        drop(conn);
        let before = std::fs::read(config.database_path()).unwrap();

        let checks = check_all(&config);
        assert_eq!(checks[0].name, "data");
        assert_eq!(checks[0].status, Status::Fail);
        assert!(
            checks[0].detail.contains("newer Deskmate"),
            "{}",
            checks[0].detail
        );
        assert!(checks[0]
            .fix
            .as_deref()
            .is_some_and(|f| f.contains("update Deskmate")));
        let names: Vec<&str> = checks.iter().map(|c| c.name.as_str()).collect();
        for expected in ["audio input", "audio output", "keyring", "serial", "llm"] {
            assert!(
                names.contains(&expected),
                "missing check {expected}: {names:?}"
            );
        }
        assert_eq!(
            std::fs::read(config.database_path()).unwrap(),
            before,
            "the refused database was changed"
        );
    }

    #[test]
    fn a_data_dir_that_cannot_be_created_fails_with_the_fix() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("a-file");
        std::fs::write(&file, "x").unwrap();
        let checks = check_all(&Config::in_dir(&file.join("deskmate")));
        assert_eq!(
            (checks[0].name.as_str(), checks[0].status),
            ("data", Status::Fail)
        );
        assert!(checks[0]
            .fix
            .as_deref()
            .is_some_and(|f| f.contains("--data-dir")));
        assert!(checks.len() >= 6, "{checks:?}");
    }

    #[test]
    fn model_sha_mismatch_is_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("m.bin"), b"abc").unwrap();
        let m = ModelEntry {
            name: "x".into(),
            purpose: "test".into(),
            files: vec![ModelFile {
                path: "m.bin".into(),
                sha256: "00".into(),
            }],
            sources: Vec::new(),
            convert: None,
            made_by: None,
        };
        let c = check_model(dir.path(), &m);
        assert_eq!(c.status, Status::Warn);
        assert!(c.detail.contains("ba7816bf"), "{}", c.detail);
        let good = ModelEntry {
            files: vec![ModelFile {
                path: "m.bin".into(),
                sha256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad".into(),
            }],
            ..m
        };
        assert_eq!(check_model(dir.path(), &good).status, Status::Ok);
    }
}
