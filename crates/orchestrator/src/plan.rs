//! Today's learning plan for a child (issue 16, points 4 and 6): the tasks
//! of the day, from the reviews due, practice left unfinished, homework
//! mistakes not redone yet and the parent's goals (每天背一首新诗 = one new material a day, 每周复习三次 =
//! three reviews a week), each done or not by today's attempts; and the
//! routines a parent assigned to the child (issue 21), each done once a run
//! of it finished today.
//!
//! [`build`] is pure: it turns what the store knows ([`Facts`]) and the
//! goals into the plan, in a fixed order — reviews due, practice to finish,
//! new materials, homework mistakes to redo, this week's reviews, routines —
//! with a material never in two tasks.
//! [`next`] is the plan scene's walk: the next task not done after the one
//! the child is on, coming round to the start. [`facts`] reads the store
//! (the child's local day and week); [`today`] is both.
//!
//! [`goal_from_words`] reads a goal as a parent says it (每天背一首新诗,
//! 每周复习三次, "2 new poems a day").

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Utc};
use chrono_tz::Tz;
use deskmate_protocol::routine::Routine;
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
    /// A routine a parent assigned to the child (done once a run of it
    /// finished today).
    Routine,
}

/// One task of the day.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PlanTask {
    pub kind: TaskKind,
    /// The material to recite for it, when there is one.
    pub material_id: Option<String>,
    pub title: Option<String>,
    /// The routine to run for it (a `routine` task).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub routine: Option<String>,
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
    /// The routines assigned to the child, in name order, each with
    /// whether a run of it finished today.
    pub routines: Vec<(String, bool)>,
}

fn task(kind: TaskKind, m: &Named, done: bool, zh: String, en: String) -> PlanTask {
    PlanTask {
        kind,
        material_id: Some(m.id.clone()),
        title: Some(m.title.clone()),
        routine: None,
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
            routine: None,
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
            routine: None,
            done,
            count: Some(count),
            target: Some(target),
            text_zh: zh,
            text_en: en,
        });
    }
    for (name, done) in &facts.routines {
        tasks.push(PlanTask {
            kind: TaskKind::Routine,
            material_id: None,
            title: Some(name.clone()),
            routine: Some(name.clone()),
            done: *done,
            count: None,
            target: None,
            text_zh: format!("日常安排：{name}"),
            text_en: format!("Routine: {name}"),
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
    let routines = assigned_routines(store, profile_id, &start)?;
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
        routines,
    })
}

/// The routines assigned to `profile_id` (their `children` name it), in
/// name order, each with whether a run of it for the child finished since
/// `start`. A stored routine that cannot be read is left out (the editor
/// and `deskmate workflows show` say why).
fn assigned_routines(
    store: &Store,
    profile_id: &str,
    start: &str,
) -> SceneResult<Vec<(String, bool)>> {
    let mut out = Vec::new();
    for row in store.routines().list()? {
        let Ok(routine) = serde_json::from_str::<Routine>(&row.spec) else {
            continue;
        };
        if !routine.children.iter().any(|c| c == profile_id) {
            continue;
        }
        let finished: i64 = store.with_conn(|c| {
            Ok(c.query_row(
                "SELECT count(*) FROM routine_runs WHERE routine = ?1 AND profile_id = ?2
                 AND status = 'finished' AND created_at >= ?3",
                params![routine.name, profile_id, start],
                |r| r.get(0),
            )?)
        })?;
        out.push((routine.name, finished > 0));
    }
    Ok(out)
}

/// `profile_id`'s plan for the local day of `now`.
pub fn today(store: &Store, profile_id: &str, now: DateTime<Utc>) -> SceneResult<Plan> {
    let facts = facts(store, profile_id, now)?;
    let goals = store.goals().list(profile_id)?;
    Ok(build(&facts, &goals))
}

#[cfg(test)]
mod tests;
