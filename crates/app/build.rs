//! Bundles the repository's `skills/` and `agents/` folders into the app:
//! writes `$OUT_DIR/bundled.rs` with every `skills/<name>/SKILL.md` and
//! `agents/**/AGENTS.md` as `include_str!`, and reruns when either folder
//! changes (cargo scans a directory given to `rerun-if-changed`).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

fn files(root: &Path, file_name: &str) -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    if root.join(file_name).is_file() {
        out.push((String::new(), root.join(file_name)));
    }
    let Ok(entries) = std::fs::read_dir(root) else {
        return out;
    };
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let file = folder.join(file_name);
        if let (true, Some(name)) = (file.is_file(), folder.file_name().and_then(|n| n.to_str())) {
            out.push((name.to_string(), file));
        }
    }
    out
}

fn array(name: &str, entries: &[(String, PathBuf)]) -> String {
    let mut s = format!("pub(crate) static {name}: &[(&str, &str)] = &[\n");
    for (folder, path) in entries {
        let _ = writeln!(
            s,
            "    ({folder:?}, include_str!({:?})),",
            path.display().to_string()
        );
    }
    s.push_str("];\n");
    s
}

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let repo = manifest.join("../..");
    let (skills, agents) = (repo.join("skills"), repo.join("agents"));
    println!("cargo:rerun-if-changed={}", skills.display());
    println!("cargo:rerun-if-changed={}", agents.display());
    let code = format!(
        "/// `skills/<name>/SKILL.md`, by folder name.\n{}/// `agents/AGENTS.md` (folder \"\") and `agents/<name>/AGENTS.md`.\n{}",
        array("SKILLS", &files(&skills, "SKILL.md")),
        array("AGENTS", &files(&agents, "AGENTS.md")),
    );
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap_or_default()).join("bundled.rs");
    if let Err(e) = std::fs::write(&out, code) {
        eprintln!("cannot write {}: {e}", out.display());
        std::process::exit(1);
    }
}
