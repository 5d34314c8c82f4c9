//! The companion's team and skills. The team is the repository's `agents/`
//! folder, compiled in by `build.rs` (the lead's instructions and one folder
//! per subagent). The skills: the ones bundled with the app (the repository's
//! `skills/` folder, compiled in by `build.rs`) and a parent's own in
//! `<data dir>/skills/<name>/SKILL.md`, which replace a bundled one of the
//! same name. Loaded when a chat starts, so a parent's new skill counts
//! from the next message; `deskmate doctor` lists the ones skipped.

use std::path::PathBuf;

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

    /// The companion's team as bundled from `agents/`.
    pub fn team(&self) -> Team {
        Team::new(
            bundled::AGENTS
                .iter()
                .map(|(folder, text)| (*folder, *text)),
        )
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
        // Every tool the files name exists (the lamp's while one is connected).
        let mut known: Vec<String> = app
            .chat()
            .tools()
            .names()
            .iter()
            .map(|n| n.to_string())
            .collect();
        known.push("task".into());
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
}
