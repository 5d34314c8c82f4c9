//! The companion's team and skills. The team is the repository's `agents/`
//! folder, compiled in by `build.rs` (the lead's instructions and one folder
//! per subagent). The skills: the ones bundled with the app (the repository's
//! `skills/` folder, compiled in by `build.rs`) and a parent's own in
//! `<data dir>/skills/<name>/SKILL.md`, which replace a bundled one of the
//! same name. Looked at when a chat starts, so a parent's new skill counts
//! from the next message; `deskmate doctor` lists the ones skipped. Both are
//! parsed once and kept: the team for the process, the skills until a
//! parent's skill file is added, removed or changed.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::SystemTime;

use deskmate_agent::skills::{read_dir, SkillFile, SkillSource};
use deskmate_agent::team::Team;
use deskmate_agent::SkillLibrary;

use crate::chat::Chat;

mod bundled {
    include!(concat!(env!("OUT_DIR"), "/bundled.rs"));
}

impl Chat {
    /// Where a parent keeps their own skills.
    pub fn parent_skills_dir(&self) -> PathBuf {
        self.config().data_dir.join("skills")
    }

    /// The companion's team as bundled from `agents/` (parsed once).
    pub fn team(&self) -> Team {
        static TEAM: OnceLock<Team> = OnceLock::new();
        TEAM.get_or_init(|| {
            Team::new(
                bundled::AGENTS
                    .iter()
                    .map(|(folder, text)| (*folder, *text)),
            )
        })
        .clone()
    }

    /// The skills for a run: the library loaded before while the parent's
    /// folder looks the same (each skill file's size and time), else loaded
    /// afresh. A run used to parse every skill's front matter again.
    pub(crate) fn current_skills(&self) -> Arc<SkillLibrary> {
        let look = folder_look(&self.parent_skills_dir());
        let mut kept = self.skills.0.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((seen, library)) = kept.as_ref() {
            if *seen == look {
                return Arc::clone(library);
            }
        }
        let library = Arc::new(self.skills());
        *kept = Some((look, Arc::clone(&library)));
        library
    }

    /// The bundled skills and the parent's, checked.
    pub fn skills(&self) -> SkillLibrary {
        let built_in = bundled::SKILLS
            .iter()
            .map(|(folder, text)| SkillFile {
                folder: (*folder).to_string(),
                source: SkillSource::BuiltIn,
                text: (*text).to_string(),
            })
            .collect();
        let dir = self.parent_skills_dir();
        let (parent, unreadable) = read_dir(&dir, SkillSource::Parent(dir.clone()));
        SkillLibrary::new(built_in, parent).with_problems(unreadable)
    }
}

/// The skills loaded last and the look of the parent's folder then.
#[derive(Debug, Clone, Default)]
pub(crate) struct LoadedSkills(Arc<Mutex<Option<Loaded>>>);

/// A library and the look of the parent's folder it was loaded from.
type Loaded = (FolderLook, Arc<SkillLibrary>);

/// Each entry of a skills folder with its `SKILL.md`'s size and time.
type FolderLook = Vec<(std::ffi::OsString, Option<(u64, SystemTime)>)>;

fn folder_look(dir: &Path) -> FolderLook {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut look: FolderLook = entries
        .flatten()
        .map(|e| {
            let file = std::fs::metadata(e.path().join("SKILL.md"))
                .ok()
                .and_then(|m| Some((m.len(), m.modified().ok()?)));
            (e.file_name(), file)
        })
        .collect();
    look.sort();
    look
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use crate::Config;
    use crate::Deskmate;

    #[test]
    fn the_bundled_team_is_well_formed() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let team = app.chat().team();
        assert!(team.problems().is_empty(), "{:?}", team.problems());
        assert!(team.lead.is_some(), "agents/AGENTS.md is the lead's");
        for name in [
            "recitation-coach",
            "poetry-tutor",
            "chinese-tutor",
            "math-tutor",
            "english-tutor",
            "homework-checker",
            "homework-tutor",
            "learning-progress",
            "learning-scheduler",
            "parent-advisor",
            "general-purpose",
        ] {
            let sub = team
                .subagent(name)
                .unwrap_or_else(|| panic!("no subagent {name}"));
            assert!(
                !sub.tools.iter().any(|t| t == "task"),
                "{name} cannot start subagents"
            );
        }
        // Every tool the files name exists (the lamp's while one is
        // connected, rag_retrieval while a knowledge base has documents).
        let mut known: Vec<String> = app
            .chat()
            .tools()
            .names()
            .iter()
            .map(|n| n.to_string())
            .collect();
        known.push("task".into());
        known.push("rag_retrieval".into());
        known.extend(
            [
                deskmate_lamp::tools::SET_LIGHT,
                deskmate_lamp::tools::EXPRESSION,
                deskmate_lamp::tools::GESTURE,
                deskmate_lamp::tools::PROJECT,
            ]
            .map(String::from),
        );
        for agent in team.lead.iter().chain(team.subagents()) {
            for tool in &agent.tools {
                assert!(
                    known.contains(tool),
                    "{} names an unknown tool {tool}",
                    agent.name
                );
            }
        }
    }

    #[test]
    fn the_bundled_skills_are_all_well_formed_and_a_parent_s_replace_them() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let bundled = app.chat().skills();
        assert!(bundled.problems().is_empty(), "{:?}", bundled.problems());
        assert!(
            bundled.skills().count() >= 11,
            "the app ships at least 11 skills, found {}",
            bundled.skills().count()
        );
        let name = bundled.skills().next().unwrap().name.clone();
        let mine = app.chat().parent_skills_dir().join(&name);
        std::fs::create_dir_all(&mine).unwrap();
        std::fs::write(
            mine.join("SKILL.md"),
            format!("---\nname: {name}\ndescription: 我们家自己的方法\n---\n先读三遍。\n"),
        )
        .unwrap();
        let broken = app.chat().parent_skills_dir().join("broken");
        std::fs::create_dir_all(&broken).unwrap();
        std::fs::write(broken.join("SKILL.md"), "no frontmatter").unwrap();
        let lib = app.chat().skills();
        assert_eq!(lib.get(&name).unwrap().description, "我们家自己的方法");
        assert_eq!(lib.skills().count(), bundled.skills().count());
        assert_eq!(lib.problems().len(), 1);
        assert!(lib.problems()[0].origin.contains("broken"));
    }

    #[test]
    fn skills_are_kept_until_a_parent_s_folder_changes() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let first = app.chat().current_skills();
        let again = app.chat().current_skills();
        assert!(std::sync::Arc::ptr_eq(&first, &again), "parsed twice");
        assert!(first.get("family-rules").is_none());
        let mine = app.chat().parent_skills_dir().join("family-rules");
        std::fs::create_dir_all(&mine).unwrap();
        let write = |description: &str| {
            std::fs::write(
                mine.join("SKILL.md"),
                format!("---\nname: family-rules\ndescription: {description}\n---\n先读三遍。\n"),
            )
            .unwrap()
        };
        write("我们家的约定");
        let added = app.chat().current_skills();
        assert_eq!(
            added.get("family-rules").unwrap().description,
            "我们家的约定"
        );
        write("我们家的学习约定和休息时间");
        let edited = app.chat().current_skills();
        assert_eq!(
            edited.get("family-rules").unwrap().description,
            "我们家的学习约定和休息时间"
        );
        std::fs::remove_dir_all(&mine).unwrap();
        assert!(app.chat().current_skills().get("family-rules").is_none());
    }
}
