//! The companion's team as written in `agents/`: the lead's `AGENTS.md` and
//! one folder per subagent with its own `AGENTS.md`, each YAML frontmatter
//! then the agent's instructions:
//!
//! ```text
//! ---
//! name: math-tutor
//! description: When a child is stuck on a maths problem …
//! tools: [read_file, write_todos]
//! model: openai:gpt-4o-mini      # optional
//! ---
//! (the instructions)
//! ```
//!
//! A subagent's `name` equals its folder's; `description` is what the lead
//! reads to decide where to hand work (1–1024 characters); `tools` lists the
//! tools it may use. A malformed file is skipped and listed as a problem,
//! never a crash.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::skills::{check_front, frontmatter};

/// One agent of the team.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentProfile {
    pub name: String,
    pub description: String,
    pub tools: Vec<String>,
    /// `provider:model`, when this agent uses another model than the lead's.
    pub model: Option<String>,
    /// The instructions (the Markdown after the frontmatter).
    pub instructions: String,
}

/// A file that was skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TeamProblem {
    /// `agents/AGENTS.md` or `agents/<folder>/AGENTS.md`.
    pub origin: String,
    pub reason: String,
}

/// The lead and its subagents, by name.
#[derive(Debug, Clone, Default)]
pub struct Team {
    pub lead: Option<AgentProfile>,
    subagents: BTreeMap<String, AgentProfile>,
    problems: Vec<TeamProblem>,
}

#[derive(Deserialize)]
struct Front {
    name: String,
    description: String,
    #[serde(default)]
    tools: Vec<String>,
    #[serde(default)]
    model: Option<String>,
}

fn profile(folder: &str, text: &str) -> Result<AgentProfile, String> {
    let (front, body): (Front, &str) = frontmatter(text)?;
    let (name, description) = check_front(&front.name, folder, &front.description, body)?;
    Ok(AgentProfile {
        name,
        description,
        tools: front
            .tools
            .into_iter()
            .map(|t| t.trim().to_string())
            .collect(),
        model: front
            .model
            .map(|m| m.trim().to_string())
            .filter(|m| !m.is_empty()),
        instructions: body.trim().to_string(),
    })
}

impl Team {
    /// Reads `(folder, text)` pairs: folder `""` is the lead's
    /// `agents/AGENTS.md`, any other a subagent's.
    pub fn new<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut team = Self::default();
        for (folder, text) in files {
            let origin = if folder.is_empty() {
                "agents/AGENTS.md".to_string()
            } else {
                format!("agents/{folder}/AGENTS.md")
            };
            match profile(folder, text) {
                Ok(p) if folder.is_empty() => team.lead = Some(p),
                Ok(p) => {
                    team.subagents.insert(p.name.clone(), p);
                }
                Err(reason) => team.problems.push(TeamProblem { origin, reason }),
            }
        }
        team
    }

    pub fn subagents(&self) -> impl Iterator<Item = &AgentProfile> {
        self.subagents.values()
    }

    pub fn subagent(&self, name: &str) -> Option<&AgentProfile> {
        self.subagents.get(name)
    }

    pub fn problems(&self) -> &[TeamProblem] {
        &self.problems
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn the_lead_and_subagents_are_read_and_bad_files_reported() {
        let lead =
            "---\nname: deskmate\ndescription: 同桌\ntools: [task, read_file]\n---\n你是同桌。\n";
        let math = "---\nname: math-tutor\ndescription: 数学题卡住时\ntools:\n  - read_file\n  - write_todos\nmodel: openai:gpt-4o-mini\n---\n一步一步来。\n";
        let wrong = "---\nname: other\ndescription: x\n---\nbody\n";
        let team = Team::new([("", lead), ("math-tutor", math), ("english-tutor", wrong)]);
        assert_eq!(team.lead.as_ref().unwrap().tools, ["task", "read_file"]);
        let m = team.subagent("math-tutor").unwrap();
        assert_eq!(m.tools, ["read_file", "write_todos"]);
        assert_eq!(m.model.as_deref(), Some("openai:gpt-4o-mini"));
        assert_eq!(m.instructions, "一步一步来。");
        assert_eq!(team.subagents().count(), 1);
        assert_eq!(team.problems().len(), 1);
        assert_eq!(team.problems()[0].origin, "agents/english-tutor/AGENTS.md");
        assert!(team.problems()[0].reason.contains("differs"));
    }
}
