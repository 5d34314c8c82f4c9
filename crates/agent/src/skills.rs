//! Skills: folders of know-how an agent reads when it decides it needs them
//! (the Agent Skills layout deepagents uses). Each skill is
//! `<name>/SKILL.md`, YAML frontmatter then Markdown:
//!
//! ```text
//! ---
//! name: poem-explanation
//! description: How to explain a classical poem to a child …
//! ---
//! (the body)
//! ```
//!
//! `name` is 1–64 lowercase letters, digits and hyphens and equals the
//! folder's name; `description` is 1–1024 characters. Only the names and
//! descriptions go into the system prompt of every model call, with the path
//! to read; the model reads a body with `read_file` when it wants it. The
//! bodies are copied read-only into each thread's workspace at
//! `/skills/<name>/SKILL.md` when a run starts (the file tools refuse to
//! write there).
//!
//! Skills come from the app (built in) and from a parent's folder in the
//! data directory; a parent's skill replaces a built-in one of the same
//! name. A malformed skill is skipped and listed in
//! [`SkillLibrary::problems`] (the doctor shows them) — never a crash.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::de::DeserializeOwned;
use serde::Deserialize;

use cap_fs_ext::DirExt;
use cap_std::fs::Dir;

use crate::sandbox::{Sandbox, SandboxError, Seed};

/// The workspace folder the skills are copied into.
pub const SKILLS_DIR: &str = "/skills";
/// Longest skill name.
pub const NAME_MAX: usize = 64;
/// Longest skill description.
pub const DESCRIPTION_MAX: usize = 1024;
/// Largest SKILL.md read (a skill is guidance, not a book).
pub const FILE_MAX_BYTES: u64 = 256 * 1024;

/// Where a skill came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SkillSource {
    /// Shipped with the app.
    BuiltIn,
    /// A parent's own, from this folder.
    Parent(PathBuf),
}

/// One usable skill.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    pub description: String,
    /// The whole SKILL.md, frontmatter included (what `read_file` shows).
    pub text: String,
    pub source: SkillSource,
}

impl Skill {
    /// Where the model reads it.
    pub fn path(&self) -> String {
        format!("{SKILLS_DIR}/{}/SKILL.md", self.name)
    }
}

/// A skill that was skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillProblem {
    /// Where it was found (`built-in poem-explanation` or a file path).
    pub origin: String,
    pub reason: String,
}

/// One SKILL.md before it is checked: the folder's name, where it came
/// from, and its text.
#[derive(Debug, Clone)]
pub struct SkillFile {
    pub folder: String,
    pub source: SkillSource,
    pub text: String,
}

/// The skills an agent may use, by name.
#[derive(Debug, Clone, Default)]
pub struct SkillLibrary {
    skills: BTreeMap<String, Skill>,
    problems: Vec<SkillProblem>,
}

#[derive(Deserialize)]
struct SkillFront {
    name: String,
    description: String,
}

/// Splits a `---` YAML frontmatter from the Markdown body and parses it.
pub fn frontmatter<T: DeserializeOwned>(text: &str) -> Result<(T, &str), String> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let rest = text
        .strip_prefix("---\n")
        .or_else(|| text.strip_prefix("---\r\n"))
        .ok_or("it does not start with a --- line opening the frontmatter")?;
    let end = rest
        .match_indices("\n---")
        .map(|(i, _)| i)
        .find(|&i| {
            let after = &rest[i + 4..];
            after.is_empty() || after.starts_with('\n') || after.starts_with("\r\n")
        })
        .ok_or("the frontmatter has no closing --- line")?;
    let yaml = &rest[..end];
    let body = rest[end + 4..].trim_start_matches(['\r', '\n']);
    let front = serde_yaml_ng::from_str(yaml).map_err(|e| format!("its frontmatter: {e}"))?;
    Ok((front, body))
}

/// The checks a skill's and an agent's frontmatter share: `name` is 1–64
/// lowercase letters, digits and hyphens and (unless `folder` is empty)
/// equals the folder; `description` has 1–1024 characters; the body is not
/// empty. Returns the trimmed name and description.
pub(crate) fn check_front(
    name: &str,
    folder: &str,
    description: &str,
    body: &str,
) -> Result<(String, String), String> {
    let name = name.trim();
    let ok_name = !name.is_empty()
        && name.len() <= NAME_MAX
        && name
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !ok_name {
        return Err(format!(
            "name {name:?} must be 1–{NAME_MAX} lowercase letters, digits and hyphens"
        ));
    }
    if !folder.is_empty() && name != folder {
        return Err(format!("name {name:?} differs from its folder {folder:?}"));
    }
    let description = description.trim();
    let chars = description.chars().count();
    if chars == 0 || chars > DESCRIPTION_MAX {
        return Err(format!(
            "description has {chars} characters; it must have 1–{DESCRIPTION_MAX}"
        ));
    }
    if body.trim().is_empty() {
        return Err("it has no body after the frontmatter".into());
    }
    Ok((name.to_string(), description.to_string()))
}

fn check(file: &SkillFile) -> Result<Skill, String> {
    let (front, body): (SkillFront, &str) = frontmatter(&file.text)?;
    let (name, description) = check_front(&front.name, &file.folder, &front.description, body)?;
    Ok(Skill {
        name,
        description,
        text: file.text.clone(),
        source: file.source.clone(),
    })
}

/// Every `<folder>/SKILL.md` directly inside `dir` (none when `dir` does not
/// exist); unreadable ones are problems.
pub fn read_dir(dir: &Path, source: SkillSource) -> (Vec<SkillFile>, Vec<SkillProblem>) {
    let (mut files, mut problems) = (Vec::new(), Vec::new());
    let Ok(entries) = std::fs::read_dir(dir) else {
        return (files, problems);
    };
    let mut folders: Vec<PathBuf> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    folders.sort();
    for folder in folders {
        let path = folder.join("SKILL.md");
        let origin = path.display().to_string();
        let Some(name) = folder.file_name().and_then(|n| n.to_str()) else {
            problems.push(SkillProblem {
                origin,
                reason: "its folder's name is not UTF-8".into(),
            });
            continue;
        };
        let read = std::fs::metadata(&path).and_then(|m| {
            if m.len() > FILE_MAX_BYTES {
                Err(std::io::Error::other(format!(
                    "it is {} bytes; at most {FILE_MAX_BYTES} are read",
                    m.len()
                )))
            } else {
                std::fs::read_to_string(&path)
            }
        });
        match read {
            Ok(text) => files.push(SkillFile {
                folder: name.to_string(),
                source: source.clone(),
                text,
            }),
            Err(e) => problems.push(SkillProblem {
                origin,
                reason: format!("cannot be read: {e}"),
            }),
        }
    }
    (files, problems)
}

impl SkillLibrary {
    /// The built-in skills, then a parent's (`parent` replaces a built-in of
    /// the same name). Malformed ones are skipped and listed as problems.
    pub fn new(built_in: Vec<SkillFile>, parent: Vec<SkillFile>) -> Self {
        let mut library = Self::default();
        for file in built_in.into_iter().chain(parent) {
            match check(&file) {
                Ok(skill) => {
                    library.skills.insert(skill.name.clone(), skill);
                }
                Err(reason) => library.problems.push(SkillProblem {
                    origin: match &file.source {
                        SkillSource::BuiltIn => format!("built-in skill {}", file.folder),
                        SkillSource::Parent(dir) => dir
                            .join(&file.folder)
                            .join("SKILL.md")
                            .display()
                            .to_string(),
                    },
                    reason,
                }),
            }
        }
        library
    }

    /// Adds problems found before parsing (unreadable files).
    pub fn with_problems(mut self, problems: Vec<SkillProblem>) -> Self {
        self.problems.extend(problems);
        self
    }

    pub fn skills(&self) -> impl Iterator<Item = &Skill> {
        self.skills.values()
    }

    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.get(name)
    }

    pub fn problems(&self) -> &[SkillProblem] {
        &self.problems
    }

    pub fn is_empty(&self) -> bool {
        self.skills.is_empty()
    }

    /// The system prompt's section on skills: each name, description and
    /// path, and how to use them. Empty when there are none.
    pub fn prompt_section(&self) -> String {
        if self.skills.is_empty() {
            return String::new();
        }
        let mut out = String::from(
            "\n\n## Skills\nSkills are guides you can read when a task matches one. Only their names and descriptions are listed here; \
when one fits, read its file with read_file before you act, then follow it. They are read-only.\n",
        );
        for skill in self.skills.values() {
            out.push_str(&format!(
                "- {} ({}): {}\n",
                skill.name,
                skill.path(),
                skill.description.replace('\n', " ")
            ));
        }
        out
    }

    /// Copies every skill into the workspace's `/skills` folder, replacing
    /// what a run before put there (a skill removed since is gone).
    pub fn install(&self, sandbox: &Sandbox) -> Result<(), SandboxError> {
        let root = sandbox.check("/")?;
        let top = sandbox.folder(&root, false)?;
        self.install_into(sandbox, &top)
    }

    /// What a run's deferred workspace is seeded with: the skills as they
    /// are now, copied in when a tool first uses the workspace.
    pub fn seed(self: Arc<Self>) -> Seed {
        Box::new(move |sandbox, top| self.install_into(sandbox, top))
    }

    /// [`SkillLibrary::install`] into the opened workspace folder `top`.
    fn install_into(&self, sandbox: &Sandbox, top: &Dir) -> Result<(), SandboxError> {
        let folder = SKILLS_DIR.trim_start_matches('/');
        let failed = |e: &std::io::Error| crate::sandbox::unusable(SKILLS_DIR, e);
        match top.remove_dir_all(folder) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(failed(&e)),
        }
        if self.skills.is_empty() {
            return Ok(());
        }
        top.create_dir(folder).map_err(|e| failed(&e))?;
        let skills = top.open_dir_nofollow(folder).map_err(|e| failed(&e))?;
        for skill in self.skills.values() {
            // Checked by its text like any path a tool names.
            sandbox.check(&format!("{SKILLS_DIR}/{}", skill.name))?;
            let unusable = |e: &std::io::Error| crate::sandbox::unusable(&skill.path(), e);
            skills.create_dir(&skill.name).map_err(|e| unusable(&e))?;
            skills
                .open_dir_nofollow(&skill.name)
                .and_then(|dir| dir.write("SKILL.md", skill.text.as_bytes()))
                .map_err(|e| unusable(&e))?;
        }
        Ok(())
    }
}

/// Whether a workspace path is inside the read-only skills folder.
pub(crate) fn is_read_only(shown: &str) -> bool {
    shown == SKILLS_DIR || shown.starts_with(&format!("{SKILLS_DIR}/"))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn file(folder: &str, text: &str, source: SkillSource) -> SkillFile {
        SkillFile {
            folder: folder.into(),
            source,
            text: text.into(),
        }
    }

    const GOOD: &str = "---\nname: poem-explanation\ndescription: >-\n  Explain a poem: words, picture, feeling.\n---\n# Steps\n1. Read it aloud.\n";

    #[test]
    fn a_skill_is_read_with_its_frontmatter() {
        let lib = SkillLibrary::new(
            vec![file("poem-explanation", GOOD, SkillSource::BuiltIn)],
            vec![],
        );
        let skill = lib.get("poem-explanation").unwrap();
        assert_eq!(
            skill.description,
            "Explain a poem: words, picture, feeling."
        );
        assert_eq!(skill.path(), "/skills/poem-explanation/SKILL.md");
        assert!(lib.problems().is_empty());
        let section = lib.prompt_section();
        assert!(
            section
                .contains("poem-explanation (/skills/poem-explanation/SKILL.md): Explain a poem"),
            "{section}"
        );
        assert!(
            !section.contains("Read it aloud"),
            "bodies stay out of the prompt"
        );
    }

    #[test]
    fn malformed_skills_are_skipped_with_the_reason() {
        let cases = [
            ("no-front", "just text", "does not start"),
            ("open", "---\nname: open\ndescription: x\n", "no closing"),
            ("bad-yaml", "---\nname: [\n---\nbody", "frontmatter"),
            (
                "Upper",
                "---\nname: Upper\ndescription: x\n---\nbody",
                "lowercase",
            ),
            (
                "other",
                "---\nname: elsewhere\ndescription: x\n---\nbody",
                "differs from its folder",
            ),
            (
                "long",
                &format!(
                    "---\nname: long\ndescription: {}\n---\nbody",
                    "x".repeat(1025)
                ),
                "1–1024",
            ),
            (
                "empty",
                "---\nname: empty\ndescription: x\n---\n\n",
                "no body",
            ),
            ("no-desc", "---\nname: no-desc\n---\nbody", "description"),
        ];
        let files = cases
            .iter()
            .map(|(folder, text, _)| file(folder, text, SkillSource::BuiltIn))
            .collect();
        let lib = SkillLibrary::new(files, vec![]);
        assert!(lib.is_empty());
        assert_eq!(lib.problems().len(), cases.len());
        for ((folder, _, why), problem) in cases.iter().zip(lib.problems()) {
            assert!(problem.origin.ends_with(folder), "{problem:?}");
            assert!(problem.reason.contains(why), "{folder}: {}", problem.reason);
        }
    }

    #[test]
    fn a_parent_s_skill_replaces_the_built_in_one() {
        let mine = GOOD.replace("Explain a poem", "我家的讲诗方法");
        let lib = SkillLibrary::new(
            vec![file("poem-explanation", GOOD, SkillSource::BuiltIn)],
            vec![file(
                "poem-explanation",
                &mine,
                SkillSource::Parent("/p".into()),
            )],
        );
        let skill = lib.get("poem-explanation").unwrap();
        assert!(skill.description.starts_with("我家的讲诗方法"));
        assert_eq!(skill.source, SkillSource::Parent("/p".into()));
    }

    #[test]
    fn skills_are_copied_into_the_workspace_and_stale_ones_removed() {
        let dir = tempfile::tempdir().unwrap();
        let sandbox = Sandbox::open(dir.path()).unwrap();
        std::fs::create_dir_all(dir.path().join("skills/gone")).unwrap();
        std::fs::write(dir.path().join("skills/gone/SKILL.md"), "old").unwrap();
        let lib = SkillLibrary::new(
            vec![file("poem-explanation", GOOD, SkillSource::BuiltIn)],
            vec![],
        );
        lib.install(&sandbox).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("skills/poem-explanation/SKILL.md")).unwrap(),
            GOOD
        );
        assert!(!dir.path().join("skills/gone").exists());
        assert!(is_read_only("/skills/poem-explanation/SKILL.md") && is_read_only("/skills"));
        assert!(!is_read_only("/skillset.md"));
    }

    #[test]
    fn a_folder_of_skills_is_read_and_an_unreadable_one_reported() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("poem-explanation")).unwrap();
        std::fs::write(dir.path().join("poem-explanation/SKILL.md"), GOOD).unwrap();
        std::fs::create_dir_all(dir.path().join("huge")).unwrap();
        std::fs::write(dir.path().join("huge/SKILL.md"), vec![b'x'; 300 * 1024]).unwrap();
        let (files, problems) = read_dir(dir.path(), SkillSource::Parent(dir.path().into()));
        assert_eq!(files.len(), 1);
        assert_eq!(problems.len(), 1);
        assert!(problems[0].reason.contains("bytes"), "{problems:?}");
        let (none, no_problems) = read_dir(&dir.path().join("missing"), SkillSource::BuiltIn);
        assert!(none.is_empty() && no_problems.is_empty());
    }
}
