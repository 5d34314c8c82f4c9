//! Today's learning plan for a child (issue 16, points 4 and 6): the tasks
//! of the day, from the reviews due, practice left unfinished, homework
//! mistakes not redone yet and the parent's goals (每天背一首新诗 = one new material a day, 每周复习三次 =
//! three reviews a week), each done or not by today's attempts.
//!
//! [`build`] is pure: it turns what the store knows ([`Facts`]) and the
//! goals into the plan, in a fixed order — reviews due, practice to finish,
//! new materials, homework mistakes to redo, this week's reviews — with a
//! material never in two tasks.
//! [`next`] is the plan scene's walk: the next task not done after the one
//! the child is on, coming round to the start. [`facts`] reads the store
//! (the child's local day and week); [`today`] is both.
//!
//! [`goal_from_words`] reads a goal as a parent says it (每天背一首新诗,
//! 每周复习三次, "2 new poems a day").

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use deskmate_store::{Goal, GoalKind, MaterialFilter, Store, StoreError};
use rusqlite::params;
use serde::Serialize;

use crate::scene::SceneResult;
use crate::{Practice, PracticeState};

/// What a task asks of the child.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum TaskKind {
    /// A review due today (or one reviewed today).
    Review,
    /// A practice opened and not finished.
    Finish,
    /// A new material, for the goal of new ones a day.
    New,
    /// This week's reviews, for the goal of reviews a week.
    WeeklyReviews,
    /// Homework mistakes to do again (the homework scene asks them).
    HomeworkRedo,
}

/// One task of the day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanTask {
    pub kind: TaskKind,
    /// The material to recite for it, when there is one.
    pub material_id: Option<String>,
    pub title: Option<String>,
    pub done: bool,
    /// For a count (this week's reviews): how many so far, of how many.
    pub count: Option<u32>,
    pub target: Option<u32>,
    /// The task in words, for the child.
    pub text_zh: String,
    pub text_en: String,
}

/// A child's plan for one local day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Plan {
    pub profile_id: String,
    /// The child's local day, YYYY-MM-DD.
    pub day: String,
    pub tasks: Vec<PlanTask>,
    /// Tasks done, of all.
    pub done: u32,
    pub total: u32,
}

/// A material as the plan names it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub id: String,
    pub title: String,
}

impl Named {
    pub fn new(id: impl Into<String>, title: impl Into<String>) -> Self {
        Self {
            id: id.into(),
            title: title.into(),
        }
    }
}

/// What the store knows about the child's day, for [`build`].
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    pub profile_id: String,
    pub day: String,
    /// Reviews due by the end of today, most overdue first.
    pub due: Vec<Named>,
    /// Materials practised as a review today (no longer due once passed).
    pub reviewed_today: Vec<Named>,
    /// Materials passed today (any attempt).
    pub passed_today: Vec<String>,
    /// Materials passed for the first time ever today, first first.
    pub learned_today: Vec<Named>,
    /// Practice opened and neither finished nor left, with nothing passed
    /// at that material since; newest first.
    pub unfinished: Vec<Named>,
    /// Materials the child has never passed, in library order (the child's
    /// language first).
    pub unlearned: Vec<Named>,
    /// Materials with a review schedule, soonest review first.
    pub learned: Vec<Named>,
    /// Reviews passed this week (Monday to today), one per sitting.
    pub reviews_this_week: u32,
    /// Homework mistakes not redone yet, and those redone today.
    pub mistakes_to_redo: u32,
    pub mistakes_redone_today: u32,
}

fn task(kind: TaskKind, m: &Named, done: bool, zh: String, en: String) -> PlanTask {
    PlanTask {
        kind,
        material_id: Some(m.id.clone()),
        title: Some(m.title.clone()),
        done,
        count: None,
        target: None,
        text_zh: zh,
        text_en: en,
    }
}

/// Whether one of `tasks` is about material `id`.
fn holds(tasks: &[PlanTask], id: &str) -> bool {
    tasks.iter().any(|t| t.material_id.as_deref() == Some(id))
}

/// Today's plan from what the store knows and the child's goals. Pure.
pub fn build(facts: &Facts, goals: &[Goal]) -> Plan {
    let mut tasks: Vec<PlanTask> = Vec::new();
    let passed = |id: &str| facts.passed_today.iter().any(|p| p == id);
    let learned_today = |id: &str| facts.learned_today.iter().any(|m| m.id == id);
    let goal = |kind: GoalKind| goals.iter().find(|g| g.kind == kind).map(|g| g.target);

    for m in facts.due.iter().chain(&facts.reviewed_today) {
        if holds(&tasks, &m.id) || learned_today(&m.id) {
            continue;
        }
        tasks.push(task(
            TaskKind::Review,
            m,
            passed(&m.id),
            format!("复习《{}》", m.title),
            format!("Review {}", m.title),
        ));
    }
    // New materials: those learned today count first, then one being
    // learned (opened, not passed yet), then the library's next.
    let new_target = goal(GoalKind::NewPerDay).unwrap_or(0) as usize;
    let mut new_tasks = Vec::new();
    let never_passed = |id: &str| facts.unlearned.iter().any(|m| m.id == id);
    let started: Vec<&Named> = facts
        .unfinished
        .iter()
        .filter(|m| never_passed(&m.id))
        .collect();
    for (m, done) in facts
        .learned_today
        .iter()
        .map(|m| (m, true))
        .chain(started.into_iter().map(|m| (m, false)))
        .chain(facts.unlearned.iter().map(|m| (m, false)))
    {
        if new_tasks.len() >= new_target {
            break;
        }
        if holds(&tasks, &m.id) || holds(&new_tasks, &m.id) {
            continue;
        }
        new_tasks.push(task(
            TaskKind::New,
            m,
            done,
            format!("学一首新的：《{}》", m.title),
            format!("Learn a new one: {}", m.title),
        ));
    }
    for m in &facts.unfinished {
        if holds(&tasks, &m.id) || holds(&new_tasks, &m.id) {
            continue;
        }
        tasks.push(task(
            TaskKind::Finish,
            m,
            passed(&m.id),
            format!("把《{}》背完", m.title),
            format!("Finish {}", m.title),
        ));
    }
    tasks.extend(new_tasks);
    let (left, redone) = (facts.mistakes_to_redo, facts.mistakes_redone_today);
    if left + redone > 0 {
        let (zh, en) = if left == 0 {
            (
                format!("重做作业错题（今天改好了 {redone} 道）"),
                format!("Redo homework mistakes ({redone} put right today)"),
            )
        } else {
            (
                format!("重做 {left} 道作业错题"),
                format!(
                    "Redo {left} homework mistake{}",
                    if left == 1 { "" } else { "s" }
                ),
            )
        };
        tasks.push(PlanTask {
            kind: TaskKind::HomeworkRedo,
            material_id: None,
            title: None,
            done: left == 0,
            count: Some(redone),
            target: Some(left + redone),
            text_zh: zh,
            text_en: en,
        });
    }
    if let Some(target) = goal(GoalKind::ReviewsPerWeek) {
        let count = facts.reviews_this_week;
        let done = count >= target;
        let suggestion = (!done)
            .then(|| facts.learned.iter().find(|m| !holds(&tasks, &m.id)))
            .flatten();
        let (zh, en) = match suggestion {
            Some(m) => (
                format!("本周复习 {count}/{target} 次：可以复习《{}》", m.title),
                format!("Reviews this week {count}/{target}: how about {}", m.title),
            ),
            None => (
                format!("本周复习 {count}/{target} 次"),
                format!("Reviews this week {count}/{target}"),
            ),
        };
        tasks.push(PlanTask {
            kind: TaskKind::WeeklyReviews,
            material_id: suggestion.map(|m| m.id.clone()),
            title: suggestion.map(|m| m.title.clone()),
            done,
            count: Some(count),
            target: Some(target),
            text_zh: zh,
            text_en: en,
        });
    }
    let done = tasks.iter().filter(|t| t.done).count();
    Plan {
        profile_id: facts.profile_id.clone(),
        day: facts.day.clone(),
        done: u32::try_from(done).unwrap_or(u32::MAX),
        total: u32::try_from(tasks.len()).unwrap_or(u32::MAX),
        tasks,
    }
}

/// The plan scene's walk: the index of the next task not done that has a
/// material to recite (or homework mistakes to redo), after the one on
/// `current` (the material the child has open), coming round to the start;
/// the current one again only when it is the last left. None when nothing
/// is left to do.
pub fn next(plan: &Plan, current: Option<&str>) -> Option<usize> {
    let open =
        |t: &PlanTask| !t.done && (t.material_id.is_some() || t.kind == TaskKind::HomeworkRedo);
    let n = plan.tasks.len();
    let at = current.and_then(|id| {
        plan.tasks
            .iter()
            .position(|t| t.material_id.as_deref() == Some(id))
    });
    match at {
        Some(i) => (1..=n)
            .map(|k| (i + k) % n)
            .find(|&j| plan.tasks.get(j).is_some_and(open)),
        None => plan.tasks.iter().position(open),
    }
}

/// The plan said in a sentence: the tasks with a tick for each one done.
pub fn summary(plan: &Plan) -> (String, String) {
    if plan.tasks.is_empty() {
        return (
            "今天没有要做的任务。可以学一首新诗，或者请家长设一个目标。".into(),
            "Nothing planned today. Learn a new poem, or ask a parent to set a goal.".into(),
        );
    }
    let mark = |t: &PlanTask| if t.done { "✓" } else { "○" };
    let zh: Vec<String> = plan
        .tasks
        .iter()
        .map(|t| format!("{}{}", mark(t), t.text_zh))
        .collect();
    let en: Vec<String> = plan
        .tasks
        .iter()
        .map(|t| format!("{} {}", mark(t), t.text_en))
        .collect();
    if plan.done == plan.total {
        return (
            format!("今天的任务都完成了，真棒！{}", zh.join("；")),
            format!("Everything for today is done. Well done! {}", en.join("; ")),
        );
    }
    (
        format!(
            "今天的计划（完成 {}/{}）：{}。说“下一个”开始。",
            plan.done,
            plan.total,
            zh.join("；")
        ),
        format!(
            "Today's plan ({} of {} done): {}. Say \"next\" to start.",
            plan.done,
            plan.total,
            en.join("; ")
        ),
    )
}

/// A goal as a parent says it: 每天背一首新诗, 每天学两首, 每周复习三次,
/// "1 new poem a day", "3 reviews a week". None when it is neither.
pub fn goal_from_words(words: &str) -> Option<(GoalKind, u32)> {
    let w = words.trim().to_lowercase();
    let count = number_in(&w)?;
    let daily = w.contains("每天")
        || w.contains("一天")
        || w.contains("a day")
        || w.contains("per day")
        || w.contains("daily");
    let weekly = w.contains("每周")
        || w.contains("每星期")
        || w.contains("一周")
        || w.contains("a week")
        || w.contains("per week")
        || w.contains("weekly");
    let review = w.contains("复习") || w.contains("review");
    let learn = w.contains('新')
        || w.contains('背')
        || w.contains('学')
        || w.contains("new")
        || w.contains("learn");
    match (daily, weekly, review) {
        (_, true, true) => Some((GoalKind::ReviewsPerWeek, count)),
        (true, false, false) if learn => Some((GoalKind::NewPerDay, count)),
        _ => None,
    }
}

/// The first number in `text`: digits, or a Chinese numeral up to 20.
fn number_in(text: &str) -> Option<u32> {
    let digits: String = text
        .chars()
        .skip_while(|c| !c.is_ascii_digit())
        .take_while(char::is_ascii_digit)
        .collect();
    if let Ok(n) = digits.parse() {
        return Some(n);
    }
    let value = |c: char| {
        "零一二三四五六七八九"
            .chars()
            .position(|d| d == c)
            .map(|v| v as u32)
            .or((c == '两').then_some(2))
    };
    let chars: Vec<char> = text.chars().collect();
    let start = chars
        .iter()
        .position(|c| value(*c).is_some() || *c == '十')?;
    let rest = &chars[start..];
    match rest {
        ['十', u, ..] if value(*u).is_some() => Some(10 + value(*u)?),
        ['十', ..] => Some(10),
        [t, '十', u, ..] if value(*u).is_some() => Some(value(*t)? * 10 + value(*u)?),
        [t, '十', ..] => Some(value(*t)? * 10),
        [u, ..] => value(*u),
        [] => None,
    }
}

/// When the child's local `day` starts, in UTC (a midnight a clock change
/// skips starts the day at the first local time that exists).
fn day_start(day: NaiveDate, tz: Tz) -> DateTime<Utc> {
    let midnight = day.and_hms_opt(0, 0, 0).unwrap_or_default();
    (0..=3)
        .find_map(|h| {
            tz.from_local_datetime(&(midnight + Duration::hours(h)))
                .earliest()
        })
        .map_or_else(
            || Utc.from_utc_datetime(&midnight),
            |d| d.with_timezone(&Utc),
        )
}

fn stamp(at: DateTime<Utc>) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Practice not looked at for this long is no longer "to finish".
const UNFINISHED_DAYS: i64 = 7;

fn named_rows(store: &Store, sql: &str, args: &[&dyn rusqlite::ToSql]) -> SceneResult<Vec<Named>> {
    Ok(store.with_conn(|c| {
        let mut stmt = c.prepare(sql)?;
        let rows = stmt
            .query_map(args, |r| {
                Ok(Named::new(r.get::<_, String>(0)?, r.get::<_, String>(1)?))
            })?
            .collect::<Result<Vec<_>, _>>()
            .map_err(StoreError::from)?;
        Ok(rows)
    })?)
}

/// What the store knows about `profile_id`'s day at `now` (in the child's
/// time zone).
pub fn facts(store: &Store, profile_id: &str, now: DateTime<Utc>) -> SceneResult<Facts> {
    let profile = store.profiles().get(profile_id)?;
    let tz: Tz = profile
        .time_zone
        .parse()
        .map_err(|_| StoreError::Invalid(format!("unknown time zone {:?}", profile.time_zone)))?;
    let today = now.with_timezone(&tz).date_naive();
    let start = stamp(day_start(today, tz));
    let week = stamp(day_start(
        today - Duration::days(i64::from(today.weekday().num_days_from_monday())),
        tz,
    ));
    let due = deskmate_recite::schedule::due(store, profile_id, now)?
        .into_iter()
        .map(|d| Named::new(d.material_id, d.title))
        .collect();
    let reviewed_today = named_rows(
        store,
        "SELECT a.material_id, m.title FROM recite_attempts a JOIN materials m ON m.id = a.material_id
         WHERE a.profile_id = ?1 AND a.purpose = 'review' AND a.created_at >= ?2
         GROUP BY a.material_id ORDER BY min(a.created_at)",
        &[&profile_id, &start],
    )?;
    let passed_today = named_rows(
        store,
        "SELECT DISTINCT a.material_id, '' FROM recite_attempts a
         WHERE a.profile_id = ?1 AND a.passed = 1 AND a.created_at >= ?2",
        &[&profile_id, &start],
    )?
    .into_iter()
    .map(|m| m.id)
    .collect();
    let learned_today = named_rows(
        store,
        "SELECT a.material_id, m.title FROM recite_attempts a JOIN materials m ON m.id = a.material_id
         WHERE a.profile_id = ?1 AND a.first_pass = 1 AND a.created_at >= ?2 ORDER BY a.created_at",
        &[&profile_id, &start],
    )?;
    // Practice still open: its stored state says where it is.
    let since = stamp(now - Duration::days(UNFINISHED_DAYS));
    let open: Vec<(String, String, String)> = store.with_conn(|c| {
        let mut stmt = c.prepare(
            "SELECT p.material_id, m.title, p.practice FROM practice_sessions p JOIN materials m ON m.id = p.material_id
             WHERE p.profile_id = ?1 AND p.updated_at >= ?2
               AND NOT EXISTS (SELECT 1 FROM recite_attempts a WHERE a.profile_id = p.profile_id
                               AND a.material_id = p.material_id AND a.passed = 1
                               AND (a.session_id = p.id OR a.created_at >= p.created_at))
             ORDER BY p.updated_at DESC",
        )?;
        let rows = stmt
            .query_map(params![profile_id, since], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?
            .collect::<Result<Vec<_>, _>>()
            .map_err(StoreError::from)?;
        Ok(rows)
    })?;
    let mut unfinished: Vec<Named> = Vec::new();
    for (id, title, practice) in open {
        // A practice that cannot be read is not guessed at: left out here
        // (the practice scene says it is damaged when it is opened).
        let Ok(p) = serde_json::from_str::<Practice>(&practice) else {
            continue;
        };
        let going = !matches!(p.state, PracticeState::Idle | PracticeState::Done { .. });
        if going && !unfinished.iter().any(|m| m.id == id) {
            unfinished.push(Named::new(id, title));
        }
    }
    let lang = if profile.locale.starts_with("en") {
        "en"
    } else {
        "zh"
    };
    let reviewed: Vec<Named> = named_rows(
        store,
        "SELECT r.material_id, m.title FROM recite_reviews r JOIN materials m ON m.id = r.material_id
         WHERE r.profile_id = ?1 AND r.status = 'active' ORDER BY r.next_review_at",
        &[&profile_id],
    )?;
    let ever_passed = named_rows(
        store,
        "SELECT DISTINCT material_id, '' FROM recite_attempts WHERE profile_id = ?1 AND passed = 1",
        &[&profile_id],
    )?;
    let unlearned = store
        .materials()
        .list(&MaterialFilter {
            lang: Some(lang.into()),
            ..MaterialFilter::default()
        })?
        .into_iter()
        .filter(|m| {
            !ever_passed.iter().any(|p| p.id == m.id) && !reviewed.iter().any(|r| r.id == m.id)
        })
        .map(|m| Named::new(m.id, m.title))
        .collect();
    let reviews_this_week: i64 = store.with_conn(|c| {
        Ok(c.query_row(
            "SELECT count(DISTINCT session_id) FROM recite_attempts
             WHERE profile_id = ?1 AND purpose = 'review' AND passed = 1 AND created_at >= ?2",
            params![profile_id, week],
            |r| r.get(0),
        )?)
    })?;
    let mistakes_to_redo = crate::homework::mistakes::to_redo(store, profile_id)?.len();
    let mistakes_redone_today = crate::homework::mistakes::redone_since(store, profile_id, &start)?;
    Ok(Facts {
        mistakes_to_redo: u32::try_from(mistakes_to_redo).unwrap_or(u32::MAX),
        mistakes_redone_today,
        profile_id: profile.id,
        day: today.to_string(),
        due,
        reviewed_today,
        passed_today,
        learned_today,
        unfinished,
        unlearned,
        learned: reviewed,
        reviews_this_week: u32::try_from(reviews_this_week).unwrap_or(0),
    })
}

/// `profile_id`'s plan for the local day of `now`.
pub fn today(store: &Store, profile_id: &str, now: DateTime<Utc>) -> SceneResult<Plan> {
    let facts = facts(store, profile_id, now)?;
    let goals = store.goals().list(profile_id)?;
    Ok(build(&facts, &goals))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scene::tests::fixture;
    use deskmate_recite::practice::{record_attempt, NewAttempt};
    use deskmate_recite::{Mode, TemplateTips, Transcript};
    use deskmate_store::NewMaterial;

    fn goal(kind: GoalKind, target: u32) -> Goal {
        Goal {
            id: format!("g-{}", kind.as_str()),
            profile_id: "c".into(),
            kind,
            target,
            created_at: String::new(),
            updated_at: String::new(),
        }
    }

    fn n(id: &str) -> Named {
        Named::new(id, format!("T{id}"))
    }

    fn kinds(plan: &Plan) -> Vec<(TaskKind, Option<&str>, bool)> {
        plan.tasks
            .iter()
            .map(|t| (t.kind, t.material_id.as_deref(), t.done))
            .collect()
    }

    #[test]
    fn tasks_come_from_reviews_unfinished_practice_and_goals_each_material_once() {
        let facts = Facts {
            due: vec![n("a"), n("b")],
            reviewed_today: vec![n("c"), n("a")],
            passed_today: vec!["c".into()],
            unfinished: vec![n("b"), n("d"), n("e")],
            unlearned: vec![n("e"), n("f"), n("g")],
            learned: vec![n("a"), n("b"), n("c"), n("d"), n("h")],
            reviews_this_week: 1,
            ..Facts::default()
        };
        let plan = build(
            &facts,
            &[
                goal(GoalKind::NewPerDay, 2),
                goal(GoalKind::ReviewsPerWeek, 3),
            ],
        );
        assert_eq!(
            kinds(&plan),
            vec![
                (TaskKind::Review, Some("a"), false),
                (TaskKind::Review, Some("b"), false),
                (TaskKind::Review, Some("c"), true),
                (TaskKind::Finish, Some("d"), false),
                // e was opened and never passed: it is the first new one.
                (TaskKind::New, Some("e"), false),
                (TaskKind::New, Some("f"), false),
                (TaskKind::WeeklyReviews, Some("h"), false),
            ]
        );
        assert_eq!((plan.done, plan.total), (1, 7));
        let weekly = plan.tasks.last().unwrap();
        assert_eq!((weekly.count, weekly.target), (Some(1), Some(3)));
        assert!(weekly.text_zh.contains("1/3"), "{}", weekly.text_zh);
        // Without goals only what is due and unfinished is planned.
        let bare = build(&facts, &[]);
        assert_eq!(
            kinds(&bare).iter().map(|k| k.0).collect::<Vec<_>>(),
            vec![
                TaskKind::Review,
                TaskKind::Review,
                TaskKind::Review,
                TaskKind::Finish,
                TaskKind::Finish
            ]
        );
    }

    #[test]
    fn new_materials_learned_today_count_and_a_met_weekly_goal_is_done() {
        let facts = Facts {
            learned_today: vec![n("x")],
            passed_today: vec!["x".into()],
            unlearned: vec![n("y"), n("z")],
            learned: vec![n("x")],
            reviews_this_week: 3,
            ..Facts::default()
        };
        let one = build(
            &facts,
            &[
                goal(GoalKind::NewPerDay, 1),
                goal(GoalKind::ReviewsPerWeek, 3),
            ],
        );
        assert_eq!(
            kinds(&one),
            vec![
                (TaskKind::New, Some("x"), true),
                (TaskKind::WeeklyReviews, None, true)
            ]
        );
        assert!(summary(&one).0.contains("都完成了"), "{}", summary(&one).0);
        let two = build(&facts, &[goal(GoalKind::NewPerDay, 2)]);
        assert_eq!(
            kinds(&two),
            vec![
                (TaskKind::New, Some("x"), true),
                (TaskKind::New, Some("y"), false)
            ]
        );
        let (zh, en) = summary(&two);
        assert!(
            zh.contains("完成 1/2") && zh.contains("✓学一首新的：《Tx》"),
            "{zh}"
        );
        assert!(en.contains("1 of 2 done"), "{en}");
        assert!(summary(&build(&Facts::default(), &[]))
            .0
            .contains("没有要做的任务"));
    }

    #[test]
    fn next_walks_the_tasks_not_done_and_comes_round() {
        let facts = Facts {
            due: vec![n("a"), n("b"), n("c")],
            passed_today: vec!["b".into()],
            ..Facts::default()
        };
        let plan = build(&facts, &[goal(GoalKind::ReviewsPerWeek, 2)]);
        // a, b (done), c, then the weekly count with nothing to suggest.
        assert_eq!(next(&plan, None), Some(0));
        assert_eq!(next(&plan, Some("a")), Some(2));
        assert_eq!(next(&plan, Some("c")), Some(0), "round to the start");
        assert_eq!(next(&plan, Some("b")), Some(2));
        assert_eq!(next(&plan, Some("elsewhere")), Some(0));
        let last = build(
            &Facts {
                due: vec![n("a"), n("b")],
                passed_today: vec!["b".into()],
                ..Facts::default()
            },
            &[],
        );
        assert_eq!(next(&last, Some("a")), Some(0), "the last one left again");
        let all = build(
            &Facts {
                due: vec![n("a")],
                passed_today: vec!["a".into()],
                ..Facts::default()
            },
            &[],
        );
        assert_eq!(next(&all, Some("a")), None);
        assert_eq!(next(&build(&Facts::default(), &[]), None), None);
    }

    #[test]
    fn goals_are_read_as_a_parent_says_them() {
        for (words, want) in [
            ("每天背一首新诗", Some((GoalKind::NewPerDay, 1))),
            ("每天学两首", Some((GoalKind::NewPerDay, 2))),
            ("每周复习三次", Some((GoalKind::ReviewsPerWeek, 3))),
            ("每星期复习十二次", Some((GoalKind::ReviewsPerWeek, 12))),
            ("一周复习 4 次", Some((GoalKind::ReviewsPerWeek, 4))),
            ("1 new poem a day", Some((GoalKind::NewPerDay, 1))),
            ("3 reviews a week", Some((GoalKind::ReviewsPerWeek, 3))),
            ("每天复习", None),
            ("多读书", None),
            ("每周背新诗", None),
        ] {
            assert_eq!(goal_from_words(words), want, "{words}");
        }
    }

    fn add(store: &Store, title: &str, body: &str) -> String {
        store
            .materials()
            .add_custom(
                NewMaterial {
                    lang: "zh".into(),
                    title: title.into(),
                    body: body.into(),
                    grade: Some(1),
                    ..NewMaterial::default()
                },
                None,
            )
            .unwrap()
            .id
    }

    fn recite(store: &Store, child: &str, material: &str, at: DateTime<Utc>, right: bool) {
        recite_in(store, child, material, at, right, None);
    }

    fn recite_in(
        store: &Store,
        child: &str,
        material: &str,
        at: DateTime<Utc>,
        right: bool,
        session_id: Option<String>,
    ) {
        let body = store.materials().get(material).unwrap().body;
        let text = if right { body } else { "不会".to_string() };
        record_attempt(
            store,
            NewAttempt {
                profile_id: child.into(),
                material_id: material.into(),
                transcript: Transcript::new(text),
                mode: Mode::Text,
                at,
                duration_ms: Some(20_000),
                session_id,
            },
            &TemplateTips,
        )
        .unwrap();
    }

    fn at(day: u32, hour: u32) -> DateTime<Utc> {
        // Shanghai is UTC+8; 2026-03-02 is a Monday.
        Utc.with_ymd_and_hms(2026, 3, day, hour, 0, 0).unwrap()
    }

    #[test]
    fn a_childs_day_is_read_from_a_real_database() {
        let f = fixture();
        let store = &f.store;
        let chun_xiao = add(
            store,
            "春晓",
            "春眠不觉晓，处处闻啼鸟。夜来风雨声，花落知多少。",
        );
        let deng = add(
            store,
            "登鹳雀楼",
            "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。",
        );
        store.goals().set(&f.child, GoalKind::NewPerDay, 1).unwrap();
        store
            .goals()
            .set(&f.child, GoalKind::ReviewsPerWeek, 3)
            .unwrap();

        // Monday: 静夜思 learned, the day's new one done.
        recite(store, &f.child, &f.poem, at(2, 2), true);
        let monday = today(store, &f.child, at(2, 3)).unwrap();
        assert_eq!(monday.day, "2026-03-02");
        assert_eq!(
            kinds(&monday),
            vec![
                (TaskKind::New, Some(f.poem.as_str()), true),
                (TaskKind::WeeklyReviews, None, false)
            ]
        );

        // The next Tuesday: 静夜思 is due; a new one is suggested.
        let tuesday = at(10, 2);
        let day = facts(store, &f.child, tuesday).unwrap();
        assert_eq!(day.due, vec![Named::new(f.poem.clone(), "静夜思")]);
        assert_eq!(day.reviews_this_week, 0);
        let plan = build(&day, &store.goals().list(&f.child).unwrap());
        assert_eq!(
            kinds(&plan)[..2],
            [
                (TaskKind::Review, Some(f.poem.as_str()), false),
                (TaskKind::New, Some(chun_xiao.as_str()), false),
            ]
        );
        // A failed review leaves it to do; a passed one makes it done
        // (and no longer due) and counts for the week.
        recite(store, &f.child, &f.poem, tuesday, false);
        let plan = today(store, &f.child, tuesday).unwrap();
        assert!(!plan.tasks[0].done);
        recite(store, &f.child, &f.poem, tuesday + Duration::hours(1), true);
        let plan = today(store, &f.child, tuesday + Duration::hours(1)).unwrap();
        assert_eq!(plan.tasks[0].kind, TaskKind::Review);
        assert!(plan.tasks[0].done);
        let weekly = plan.tasks.last().unwrap();
        assert_eq!((weekly.count, weekly.done), (Some(1), false));

        // 登鹳雀楼 opened and left unpassed is to be finished... as the new
        // one being learned; 春晓 waits.
        let practice = f.scene.start(&f.child, &deng, Mode::Voice).unwrap();
        let plan = today(store, &f.child, tuesday + Duration::hours(2)).unwrap();
        let new: Vec<_> = plan
            .tasks
            .iter()
            .filter(|t| t.kind == TaskKind::New)
            .map(|t| t.material_id.as_deref())
            .collect();
        assert_eq!(new, vec![Some(deng.as_str())]);
        // Passed: done, and no longer unfinished.
        recite_in(
            store,
            &f.child,
            &deng,
            tuesday + Duration::hours(3),
            true,
            Some(practice.id.clone()),
        );
        let day = facts(store, &f.child, tuesday + Duration::hours(3)).unwrap();
        assert!(day.unfinished.is_empty(), "{:?}", day.unfinished);
        let plan = build(&day, &store.goals().list(&f.child).unwrap());
        assert!(plan.tasks.iter().any(|t| t.kind == TaskKind::New
            && t.done
            && t.material_id.as_deref() == Some(deng.as_str())));
        // The next day, yesterday's work is not today's.
        let wednesday = today(store, &f.child, at(11, 2)).unwrap();
        assert!(wednesday
            .tasks
            .iter()
            .all(|t| !t.done || t.kind == TaskKind::WeeklyReviews));
        assert_eq!(wednesday.tasks.last().unwrap().count, Some(1), "same week");
    }
}
