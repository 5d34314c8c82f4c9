//! Today's learning plan and the parent's goals, for the front ends: the
//! plan itself is `deskmate_orchestrator::plan` (today's tasks from due
//! reviews, unfinished practice and the goals, each done or not by today's
//! attempts); the goals are the store's (`plan_goals`), set by kind and
//! number or as a parent says them ([`Deskmate::set_goal_in_words`]).

use chrono::Utc;
use deskmate_orchestrator::plan::{self, goal_from_words, Plan};
use deskmate_store::{Goal, GoalKind};

use crate::{AppError, AppResult, Deskmate};

impl Deskmate {
    /// The child's plan for their local today, with each task's progress.
    pub fn plan_today(&self, profile_id: &str) -> AppResult<Plan> {
        Ok(plan::today(self.store(), profile_id, Utc::now())?)
    }

    /// A child's goals.
    pub fn goals(&self, profile_id: &str) -> AppResult<Vec<Goal>> {
        Ok(self.store().goals().list(profile_id)?)
    }

    /// Sets (or changes) a child's goal of `kind`.
    pub fn set_goal(&self, profile_id: &str, kind: GoalKind, target: u32) -> AppResult<Goal> {
        Ok(self.store().goals().set(profile_id, kind, target)?)
    }

    /// Sets a goal as a parent says it (每天背一首新诗, 每周复习三次,
    /// "2 new poems a day"); words that are neither kind of goal fail with
    /// `plan.goal_unreadable` and nothing is written.
    pub fn set_goal_in_words(&self, profile_id: &str, words: &str) -> AppResult<Goal> {
        let (kind, target) = goal_from_words(words).ok_or_else(|| AppError::GoalUnreadable {
            words: words.trim().to_string(),
        })?;
        self.set_goal(profile_id, kind, target)
    }

    /// Removes a child's goal of `kind`.
    pub fn remove_goal(&self, profile_id: &str, kind: GoalKind) -> AppResult<()> {
        Ok(self.store().goals().remove(profile_id, kind)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Config;
    use deskmate_store::NewProfile;

    fn family(dir: &std::path::Path) -> (Deskmate, String, String) {
        let app = Deskmate::open(Config::in_dir(dir)).unwrap();
        let made = app
            .setup_family(
                NewProfile {
                    name: "妈妈".into(),
                    pin: Some("1357".into()),
                    ..Default::default()
                },
                NewProfile {
                    name: "小明".into(),
                    grade: Some(2),
                    ..Default::default()
                },
            )
            .unwrap();
        (app, made[0].id.clone(), made[1].id.clone())
    }

    #[test]
    fn goals_in_words_set_and_unreadable_words_change_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (app, parent, child) = family(dir.path());
        let g = app.set_goal_in_words(&child, "每周复习三次").unwrap();
        assert_eq!((g.kind, g.target), (GoalKind::ReviewsPerWeek, 3));
        let e = app.set_goal_in_words(&child, " 多读书 ").unwrap_err();
        assert_eq!(e.code(), "plan.goal_unreadable");
        assert_eq!(e.params()["words"], "多读书");
        assert_eq!(app.goals(&child).unwrap(), vec![g]);
        // Read, but for a parent: the store's refusal, not a new goal.
        assert_eq!(
            app.set_goal_in_words(&parent, "每天背一首新诗")
                .unwrap_err()
                .code(),
            "invalid"
        );
    }

    #[test]
    fn recent_traces_are_a_childs_requests_newest_first_with_spans() {
        let dir = tempfile::tempdir().unwrap();
        let (app, _, child) = family(dir.path());
        assert!(app.recent_traces(&child, 10).unwrap().is_empty());
        let first = app.process(&child, "我要背静夜思").unwrap();
        let second = app.process(&child, "今天的计划").unwrap();
        let traces = app.recent_traces(&child, 10).unwrap();
        let ids: Vec<&str> = traces.iter().map(|t| t.trace_id.as_str()).collect();
        assert_eq!(ids, [second.trace_id.as_str(), first.trace_id.as_str()]);
        assert_eq!(traces[1].input, "我要背静夜思");
        assert_eq!(traces[1].intent, "recite");
        assert_eq!(traces[1].spans[0].name, "request");
        assert_eq!(app.recent_traces(&child, 1).unwrap().len(), 1);
        // A request refused before a decision (a file that is not a photo)
        // is listed too, newest, with why it failed.
        let notes = dir.path().join("notes.png");
        std::fs::write(&notes, "9+8=16").unwrap();
        let refused = app.process_photos(&child, &[notes], "").unwrap();
        assert_eq!(
            refused.error.as_ref().unwrap().code,
            "homework.not_an_image"
        );
        let traces = app.recent_traces(&child, 10).unwrap();
        assert_eq!(traces.len(), 3);
        assert_eq!(traces[0].trace_id, refused.trace_id);
        assert_eq!(traces[0].decision["decision"], "reject");
        assert_eq!(
            traces[0].spans[0].error_code.as_deref(),
            Some("homework.not_an_image")
        );
        let parse = traces[0].spans.iter().find(|s| s.name == "parse").unwrap();
        assert_eq!(parse.error_code.as_deref(), Some("homework.not_an_image"));
        assert_eq!(traces[1].trace_id, second.trace_id);
        // The refused requests are found through the roots' index, not a scan of every span.
        let plan: Vec<String> = app
            .store()
            .with_conn(|c| {
                let mut stmt = c.prepare(&format!(
                    "EXPLAIN QUERY PLAN {}",
                    crate::practice::REFUSED_ROOTS
                ))?;
                let rows = stmt
                    .query_map(rusqlite::params![child, 10], |r| r.get::<_, String>(3))?
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(rows)
            })
            .unwrap();
        assert!(
            plan.iter()
                .any(|d| d.contains("USING INDEX trace_spans_root_profile")),
            "{plan:?}"
        );
    }
}
