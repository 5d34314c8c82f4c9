//! Limits, quiet hours and usage with a fixed clock, over a real store:
//! model calls, runs and messages written as the agent stores them, the
//! figures compared with the rows, and the entry refusing kindly.

use super::*;
use crate::entry::Entry;
use crate::scene::tests::fixture;
use chrono::TimeZone;
use deskmate_store::NoticeKind;
use rusqlite::params;

/// Shanghai is UTC+8: local `hour:min` on 2026-03-`day`.
fn local(day: u32, hour: u32, min: u32) -> DateTime<Utc> {
    chrono_tz::Asia::Shanghai
        .with_ymd_and_hms(2026, 3, day, hour, min, 0)
        .unwrap()
        .with_timezone(&Utc)
}

fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// A conversation of `child` with one run started at `at` (and a subagent
/// run under it), as the agent stores them.
struct Talk<'a> {
    store: &'a Store,
    thread: String,
}

impl<'a> Talk<'a> {
    fn new(store: &'a Store, child: &str, at: DateTime<Utc>) -> Self {
        let thread = uuid::Uuid::now_v7().to_string();
        store
            .with_conn(|c| {
                c.execute(
                    "INSERT INTO threads (id, profile_id, title, created_at, updated_at) VALUES (?1, ?2, '', ?3, ?3)",
                    params![thread, child, ts(at)],
                )?;
                Ok(())
            })
            .unwrap();
        Self { store, thread }
    }

    fn run(&self, at: DateTime<Utc>, parent: Option<&str>) -> String {
        let id = uuid::Uuid::now_v7().to_string();
        self.store
            .with_conn(|c| {
                c.execute(
                    "INSERT INTO runs (id, thread_id, status, model, started_at, parent_run_id) VALUES (?1, ?2, 'completed', 'openai:m', ?3, ?4)",
                    params![id, self.thread, ts(at), parent],
                )?;
                Ok(())
            })
            .unwrap();
        id
    }

    fn call(&self, run: &str, at: DateTime<Utc>, tokens: (i64, i64, i64), cost: Option<f64>) {
        self.store
            .with_conn(|c| {
                c.execute(
                    "INSERT INTO llm_calls (id, thread_id, run_id, model, status, input_tokens, output_tokens, cached_input_tokens, cost_usd, duration_ms, created_at)
                     VALUES (?1, ?2, ?3, 'openai:m', 'completed', ?4, ?5, ?6, ?7, 900, ?8)",
                    params![uuid::Uuid::now_v7().to_string(), self.thread, run, tokens.0, tokens.1, tokens.2, cost, ts(at)],
                )?;
                Ok(())
            })
            .unwrap();
    }

    fn message(&self, role: &str, at: DateTime<Utc>) {
        self.store
            .with_conn(|c| {
                c.execute(
                    "INSERT INTO messages (id, thread_id, seq, role, content, created_at)
                     VALUES (?1, ?2, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE thread_id = ?2), ?3, '[]', ?4)",
                    params![uuid::Uuid::now_v7().to_string(), self.thread, role, ts(at)],
                )?;
                Ok(())
            })
            .unwrap();
    }
}

#[test]
fn quiet_hours_cross_midnight() {
    let q = QuietHours::new("21:00", "7:00").unwrap();
    assert_eq!((q.from.as_str(), q.to.as_str()), ("21:00", "07:00"));
    let t = |s: &str| time_of_day(s).unwrap();
    for quiet in ["21:00", "22:30", "23:59", "00:00", "03:15", "06:59"] {
        assert!(q.contains(t(quiet)), "{quiet} should be quiet");
    }
    for awake in ["07:00", "12:00", "20:59"] {
        assert!(!q.contains(t(awake)), "{awake} should not be quiet");
    }
    // Within one day: 13:00–14:00 is a nap.
    let nap = QuietHours::new("13:00", "14:00").unwrap();
    assert!(nap.contains(t("13:30")) && !nap.contains(t("14:00")) && !nap.contains(t("12:59")));
    assert!(QuietHours::new("21:00", "21:00").is_err());
    assert!(QuietHours::new("25:00", "07:00").is_err());
}

#[test]
fn the_gate_reads_quiet_hours_in_the_childs_time_zone() {
    let f = fixture();
    let limits = Limits {
        quiet: Some(QuietHours::new("21:00", "07:00").unwrap()),
        ..Limits::default()
    };
    save(&f.store, &f.child, &limits).unwrap();
    // 22:30 in Shanghai is 14:30 UTC: quiet; 10:00 in Shanghai is not.
    assert!(matches!(
        gate(&f.store, &f.child, local(2, 22, 30)).unwrap(),
        Gate::Quiet(Refusal::Quiet { .. })
    ));
    assert!(matches!(
        gate(&f.store, &f.child, local(3, 6, 59)).unwrap(),
        Gate::Quiet(_)
    ));
    assert_eq!(
        gate(&f.store, &f.child, local(3, 7, 0)).unwrap(),
        Gate::Open
    );
    assert_eq!(
        gate(&f.store, &f.child, local(3, 10, 0)).unwrap(),
        Gate::Open
    );
}

#[test]
fn usage_figures_are_the_stored_calls() {
    let f = fixture();
    let talk = Talk::new(&f.store, &f.child, local(1, 20, 0));
    // Yesterday (local): one run, one call.
    let old = talk.run(local(1, 23, 50), None);
    talk.call(&old, local(1, 23, 55), (100, 10, 0), Some(0.001));
    // Today: a run with a subagent's run under it, three calls, one unpriced.
    let run = talk.run(local(2, 0, 10), None);
    let sub = talk.run(local(2, 0, 11), Some(&run));
    talk.call(&run, local(2, 0, 10), (1000, 200, 300), Some(0.002));
    talk.call(&sub, local(2, 0, 11), (500, 50, 0), Some(0.0005));
    talk.call(&run, local(2, 0, 12), (700, 70, 0), None);
    // Chat: 40 s, then 2 min, then a pause of 10 min (not counted), then 30 s.
    talk.message("user", local(2, 0, 10));
    talk.message("assistant", local(2, 0, 10) + chrono::Duration::seconds(40));
    talk.message("user", local(2, 0, 12) + chrono::Duration::seconds(40));
    talk.message("user", local(2, 0, 22) + chrono::Duration::seconds(40));
    talk.message("assistant", local(2, 0, 23) + chrono::Duration::seconds(10));

    let now = local(2, 9, 0);
    let report = crate::usage::report(&f.store, Some(&f.child), 2, now).unwrap();
    assert_eq!(report.days.len(), 2);
    let (yesterday, today) = (&report.days[0], &report.days[1]);
    assert_eq!(
        (yesterday.date.as_str(), today.date.as_str()),
        ("2026-03-01", "2026-03-02")
    );
    assert_eq!((yesterday.model_calls, yesterday.input_tokens), (1, 100));
    // The day's figures are the sums of the stored rows of that local day.
    let stored: (i64, i64, i64, i64, f64) = f
        .store
        .with_conn(|c| {
            Ok(c.query_row(
                "SELECT count(*), SUM(input_tokens), SUM(output_tokens), SUM(cached_input_tokens), SUM(COALESCE(cost_usd, 0))
                 FROM llm_calls WHERE created_at >= ?1 AND created_at < ?2",
                params![ts(local(2, 0, 0)), ts(local(3, 0, 0))],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )?)
        })
        .unwrap();
    assert_eq!(
        (
            i64::from(today.model_calls),
            today.input_tokens as i64,
            today.output_tokens as i64,
            today.cached_input_tokens as i64
        ),
        (stored.0, stored.1, stored.2, stored.3)
    );
    assert!((today.cost_usd - stored.4).abs() < 1e-12, "{today:?}");
    assert_eq!((today.runs, today.unpriced_calls), (1, 1));
    assert_eq!(today.chat_seconds, 40 + 120 + 30);
    assert_eq!(today.chat_minutes(), 4);
    // Per run: the subagent's call counts under the run that started it.
    let today_run = report.runs.iter().find(|r| r.run_id == run).unwrap();
    assert_eq!((today_run.model_calls, today_run.input_tokens), (3, 2200));
    assert!((today_run.cost_usd - 0.0025).abs() < 1e-12);
    assert_eq!(report.runs.len(), 2);
    assert_eq!(report.runs[0].run_id, run, "newest first");
    // Every child: the sibling with nothing shows empty days.
    let sibling = f
        .store
        .profiles()
        .add(deskmate_store::NewProfile {
            name: "小红".into(),
            ..Default::default()
        })
        .unwrap();
    let all = crate::usage::report(&f.store, None, 1, now).unwrap();
    let theirs = all
        .days
        .iter()
        .find(|d| d.profile_id == sibling.id)
        .unwrap();
    assert_eq!((theirs.model_calls, theirs.runs), (0, 0));
    let mine = all.days.iter().find(|d| d.profile_id == f.child).unwrap();
    assert_eq!(mine.model_calls, 3);
}

/// A call made for `child` outside a conversation (the router, a homework
/// check), stored as the app's meter stores it.
fn call_outside(store: &Store, child: &str, purpose: &str, at: DateTime<Utc>, cost: f64) {
    store
        .with_conn(|c| {
            c.execute(
                "INSERT INTO llm_calls (id, thread_id, run_id, model, status, input_tokens, output_tokens, cached_input_tokens, cost_usd, duration_ms, created_at, profile_id, purpose)
                 VALUES (?1, NULL, NULL, 'openai:m', 'completed', 40, 4, 0, ?2, 300, ?3, ?4, ?5)",
                params![uuid::Uuid::now_v7().to_string(), cost, ts(at), child, purpose],
            )?;
            Ok(())
        })
        .unwrap();
}

#[test]
fn calls_outside_a_conversation_count_in_the_day_and_towards_the_limits() {
    let f = fixture();
    let sibling = f
        .store
        .profiles()
        .add(deskmate_store::NewProfile {
            name: "小红".into(),
            ..Default::default()
        })
        .unwrap();
    let talk = Talk::new(&f.store, &f.child, local(2, 8, 0));
    let run = talk.run(local(2, 8, 0), None);
    talk.call(&run, local(2, 8, 0), (100, 10, 0), Some(0.01));
    call_outside(&f.store, &f.child, "route", local(2, 8, 5), 0.001);
    call_outside(&f.store, &f.child, "homework", local(2, 8, 6), 0.02);
    call_outside(&f.store, &sibling.id, "route", local(2, 8, 7), 0.5);
    let now = local(2, 9, 0);
    let report = crate::usage::report(&f.store, Some(&f.child), 1, now).unwrap();
    let today = &report.days[0];
    // The run's call and the two made for this child, none of the sibling's.
    assert_eq!(
        (today.model_calls, today.input_tokens, today.output_tokens),
        (3, 180, 18)
    );
    assert!((today.cost_usd - 0.031).abs() < 1e-12, "{today:?}");
    assert_eq!(today.runs, 1);
    // Per run, only the conversation's call.
    assert_eq!(report.runs.len(), 1);
    assert_eq!(report.runs[0].model_calls, 1);
    // The limit of calls counts them too.
    let limits = Limits {
        model_calls: Some(3),
        ..Limits::default()
    };
    save(&f.store, &f.child, &limits).unwrap();
    assert!(matches!(
        gate(&f.store, &f.child, now).unwrap(),
        Gate::NoModel(_)
    ));
    save(&f.store, &sibling.id, &limits).unwrap();
    assert_eq!(gate(&f.store, &sibling.id, now).unwrap(), Gate::Open);
}

#[test]
fn limits_are_reached_by_the_days_figures_only() {
    let f = fixture();
    let talk = Talk::new(&f.store, &f.child, local(1, 20, 0));
    let old = talk.run(local(1, 21, 0), None);
    for _ in 0..5 {
        talk.call(&old, local(1, 21, 0), (10, 1, 0), Some(0.01));
    }
    let limits = Limits {
        model_calls: Some(3),
        ..Limits::default()
    };
    save(&f.store, &f.child, &limits).unwrap();
    // Yesterday's five calls do not count today.
    assert_eq!(
        gate(&f.store, &f.child, local(2, 9, 0)).unwrap(),
        Gate::Open
    );
    let run = talk.run(local(2, 9, 0), None);
    for _ in 0..2 {
        talk.call(&run, local(2, 9, 1), (10, 1, 0), Some(0.01));
    }
    assert_eq!(
        gate(&f.store, &f.child, local(2, 9, 5)).unwrap(),
        Gate::Open
    );
    talk.call(&run, local(2, 9, 2), (10, 1, 0), Some(0.01));
    assert_eq!(
        gate(&f.store, &f.child, local(2, 9, 5)).unwrap(),
        Gate::NoModel(Refusal::Reached {
            limit: Limit::ModelCalls,
            used: 3.0,
            allowed: 3.0
        })
    );
    // Cost: 0.03 spent, a limit of 0.05 is not reached, 0.03 is.
    let by_cost = |c: f64| Limits {
        cost_usd: Some(c),
        ..Limits::default()
    };
    save(&f.store, &f.child, &by_cost(0.05)).unwrap();
    assert_eq!(
        gate(&f.store, &f.child, local(2, 9, 5)).unwrap(),
        Gate::Open
    );
    save(&f.store, &f.child, &by_cost(0.03)).unwrap();
    assert!(matches!(
        gate(&f.store, &f.child, local(2, 9, 5)).unwrap(),
        Gate::NoModel(Refusal::Reached {
            limit: Limit::CostUsd,
            ..
        })
    ));
    // Minutes of chat: 3 minutes talked, a limit of 3 is reached.
    for s in [0, 60, 120, 180] {
        talk.message("user", local(2, 9, 10) + chrono::Duration::seconds(s));
    }
    let by_minutes = Limits {
        chat_minutes: Some(3),
        ..Limits::default()
    };
    save(&f.store, &f.child, &by_minutes).unwrap();
    assert!(matches!(
        gate(&f.store, &f.child, local(2, 9, 20)).unwrap(),
        Gate::NoModel(Refusal::Reached {
            limit: Limit::ChatMinutes,
            ..
        })
    ));
    // Tomorrow starts afresh.
    assert_eq!(
        gate(&f.store, &f.child, local(3, 9, 0)).unwrap(),
        Gate::Open
    );
    // Nothing set removes the setting.
    save(&f.store, &f.child, &Limits::default()).unwrap();
    assert_eq!(load(&f.store, &f.child).unwrap(), Limits::default());
}

#[test]
fn bad_limits_are_refused_in_plain_words() {
    let f = fixture();
    let bad = Limits {
        chat_minutes: Some(5000),
        cost_usd: Some(-1.0),
        quiet: Some(QuietHours {
            from: "9pm".into(),
            to: "07:00".into(),
        }),
        ..Limits::default()
    };
    let err = save(&f.store, &f.child, &bad).unwrap_err().to_string();
    for part in ["at most 1440", "from 0 to", "\"9pm\""] {
        assert!(err.contains(part), "{err}");
    }
    assert_eq!(load(&f.store, &f.child).unwrap(), Limits::default());
}

/// The child's entry, with `limits` set.
fn entry_with(limits: Limits) -> (crate::scene::tests::Fixture, Entry) {
    let f = fixture();
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    save(&f.store, &f.child, &limits).unwrap();
    (f, entry)
}

#[test]
fn the_entry_is_quiet_in_quiet_hours_and_tells_the_parent_once() {
    let (f, entry) = entry_with(Limits {
        quiet: Some(QuietHours::new("21:00", "07:00").unwrap()),
        ..Limits::default()
    });
    for (said, at) in [("我要背静夜思", local(2, 22, 0)), ("你好", local(3, 6, 30))] {
        let r = entry.process(&f.child, said.into(), at, true).unwrap();
        assert_eq!(
            r.error.as_ref().map(|e| e.code.as_str()),
            Some("limits.quiet_hours")
        );
        assert!(
            r.text_zh.contains("休息") && r.text_en.contains("07:00"),
            "{r:?}"
        );
        assert!(r.practice.is_none() && !r.handoff);
    }
    // Nothing was decided or opened; the parent was told once a local day
    // (22:00 on the 2nd and 06:30 on the 3rd are two days).
    assert!(entry.decisions(&f.child, 10).unwrap().is_empty());
    let notices = f.store.notices().list(Some(&f.child), false).unwrap();
    assert_eq!(notices.len(), 2, "{notices:?}");
    assert!(notices.iter().all(|n| n.kind == NoticeKind::QuietHours));
    entry
        .process(&f.child, "你好".into(), local(3, 6, 40), true)
        .unwrap();
    assert_eq!(
        f.store.notices().list(Some(&f.child), false).unwrap().len(),
        2
    );
    // At 07:00 the poem opens.
    let r = entry
        .process(&f.child, "我要背静夜思".into(), local(3, 7, 0), true)
        .unwrap();
    assert!(r.error.is_none() && r.practice.is_some(), "{r:?}");
}

#[test]
fn a_limit_reached_stops_the_companion_not_reciting() {
    let (f, entry) = entry_with(Limits {
        model_calls: Some(0),
        ..Limits::default()
    });
    let now = local(2, 10, 0);
    let chat = entry
        .process(&f.child, "月亮上有兔子吗".into(), now, true)
        .unwrap();
    assert!(chat.needs_model && !chat.handoff, "{chat:?}");
    assert_eq!(
        chat.error.as_ref().map(|e| e.code.as_str()),
        Some("limits.reached")
    );
    assert!(chat.text_zh.contains("明天再聊"), "{}", chat.text_zh);
    assert_eq!(
        chat.phase, "idle",
        "the chat does not wait for the companion"
    );
    let recite = entry
        .process(&f.child, "我要背静夜思".into(), now, true)
        .unwrap();
    assert!(recite.error.is_none() && recite.practice.is_some());
    let notices = f.store.notices().list(Some(&f.child), false).unwrap();
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].kind, NoticeKind::LimitReached);
    assert_eq!(notices[0].detail["limit"], "model_calls");
    assert_eq!(notices[0].day, "2026-03-02");
    // The app's chat start asks the same gate.
    assert!(matches!(
        admit_model_use(&f.store, &f.child, now).unwrap(),
        Err(Refusal::Reached { .. })
    ));
}
