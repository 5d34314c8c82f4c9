//! Today's plan: what it proposes from goals, due reviews and unfinished
//! practice, how it walks its tasks, and goals read as a parent says them.

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

/// A routine a parent assigned to the child is a task of each day, done
/// once a run of it for the child finished that day; one assigned to
/// another child is not on this child's plan.
#[test]
fn an_assigned_routine_is_a_task_until_a_run_of_it_finished_today() {
    let f = fixture();
    let store = &f.store;
    let spec = |name: &str, child: &str| {
        serde_json::json!({
            "name": name,
            "nodes": [{"id": "start", "type": "start", "next": "end"}, {"id": "end", "type": "end"}],
            "children": [child],
        })
        .to_string()
    };
    store
        .routines()
        .create("evening", &spec("evening", &f.child))
        .unwrap();
    store
        .routines()
        .create("other", &spec("other", "another-child"))
        .unwrap();
    let routine_tasks = |plan: &Plan| -> Vec<(Option<String>, bool)> {
        plan.tasks
            .iter()
            .filter(|t| t.kind == TaskKind::Routine)
            .map(|t| (t.routine.clone(), t.done))
            .collect()
    };
    let plan = today(store, &f.child, Utc::now()).unwrap();
    assert_eq!(routine_tasks(&plan), vec![(Some("evening".into()), false)]);
    assert_eq!(plan.tasks[0].text_zh, "日常安排：evening");
    // Not a task the plan scene walks to (it has nothing to recite).
    assert_eq!(next(&plan, None), None);

    let runs = store.routines();
    runs.save_run("r1", "evening", Some(&f.child), "waiting", "{}")
        .unwrap();
    let plan = today(store, &f.child, Utc::now()).unwrap();
    assert_eq!(routine_tasks(&plan), vec![(Some("evening".into()), false)]);
    runs.save_run("r1", "evening", Some(&f.child), "finished", "{}")
        .unwrap();
    let plan = today(store, &f.child, Utc::now()).unwrap();
    assert_eq!(routine_tasks(&plan), vec![(Some("evening".into()), true)]);
    assert_eq!((plan.done, plan.total), (1, 1));
}
