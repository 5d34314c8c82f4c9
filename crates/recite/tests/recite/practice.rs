//! Recording attempts against a real SQLite store: history, sessions, error
//! patterns (dedup, concurrency, cached tips), FSRS reviews across days and
//! time zones with a fixed clock, and daily/weekly reports.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::atomic::{AtomicUsize, Ordering};

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use deskmate_recite::history::{self, HistoryFilter, Purpose};
use deskmate_recite::practice::{record_attempt, AttemptOutcome, NewAttempt};
use deskmate_recite::report::{self, ReportType};
use deskmate_recite::schedule::{self, Rating};
use deskmate_recite::tips::{Tip, TipError, TipRequest, TipWriter};
use deskmate_recite::{patterns, Mode, TemplateTips, Transcript, PASS_THRESHOLD_SETTING};
use deskmate_store::{NewMaterial, NewProfile, ProfileKind, Store};
use deskmate_testkit::family::{add_jing_ye_si, JING_YE_SI as POEM};

const TONE_SLIP: &str = "床前明月光，疑是地上霜。举偷望明月，低头思故乡。";

struct Fixture {
    _dir: tempfile::TempDir,
    path: std::path::PathBuf,
    store: Store,
    child: String,
    poem: String,
    other: String,
}

fn fixture(time_zone: &str) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("deskmate.sqlite3");
    let store = Store::open(&path).unwrap();
    let child = store
        .profiles()
        .add(NewProfile {
            name: "小明".into(),
            time_zone: Some(time_zone.into()),
            ..Default::default()
        })
        .unwrap()
        .id;
    let material = |slug: &str, title: &str, body: &str| NewMaterial {
        slug: Some(slug.into()),
        lang: "zh".into(),
        title: title.into(),
        body: body.into(),
        ..Default::default()
    };
    // 静夜思 as every crate's tests have it (deskmate-testkit), and a second poem.
    let poem = add_jing_ye_si(&store).id;
    store
        .materials()
        .upsert_builtin(&[material(
            "dgql",
            "登鹳雀楼",
            "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。",
        )])
        .unwrap();
    let other = deskmate_store::builtin_id("dgql");
    Fixture {
        _dir: dir,
        path,
        store,
        child,
        poem,
        other,
    }
}

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

fn attempt(f: &Fixture, material: &str, transcript: &str, when: DateTime<Utc>) -> AttemptOutcome {
    record_attempt(
        &f.store,
        NewAttempt {
            profile_id: f.child.clone(),
            material_id: material.into(),
            transcript: Transcript::new(transcript),
            mode: Mode::Voice,
            at: when,
            duration_ms: Some(30_000),
            session_id: None,
        },
        &TemplateTips,
    )
    .unwrap()
}

#[test]
fn every_attempt_is_stored_with_its_session_and_purpose() {
    let f = fixture("Asia/Shanghai");
    let t0 = at("2026-03-02T08:00:00+08:00");
    let a1 = attempt(&f, &f.poem, "床前明月光，疑是地上霜。", t0);
    let a2 = attempt(&f, &f.poem, POEM, t0 + Duration::minutes(5));
    let a3 = attempt(&f, &f.poem, POEM, t0 + Duration::minutes(20));
    let a4 = attempt(&f, &f.poem, POEM, t0 + Duration::days(1));
    assert_eq!(
        (a1.attempt_no, a2.attempt_no, a3.attempt_no, a4.attempt_no),
        (1, 2, 3, 1)
    );
    assert_eq!(a1.session_id, a3.session_id);
    assert_ne!(a1.session_id, a4.session_id);
    assert_eq!(
        (a1.purpose, a2.purpose, a3.purpose, a4.purpose),
        (
            Purpose::Learn,
            Purpose::Learn,
            Purpose::Learn,
            Purpose::Review
        )
    );
    assert!(!a1.passed && a2.passed && a2.first_pass && !a3.first_pass);

    let all = history::list(&f.store, &f.child, &HistoryFilter::default()).unwrap();
    assert_eq!(all.len(), 4);
    assert_eq!(all[0].id, a4.attempt_id, "newest first");
    let first = history::get(&f.store, &a1.attempt_id).unwrap();
    assert_eq!(first.transcript, "床前明月光，疑是地上霜。");
    assert_eq!(
        (first.units, first.correct, first.accuracy, first.passed),
        (20, 10, 50.0, false)
    );
    assert_eq!(first.errors.len(), 2);
    assert_eq!(
        (
            first.mode.as_str(),
            first.duration_ms,
            first.duration_estimated
        ),
        ("voice", 30_000, false)
    );
    let filtered = history::list(
        &f.store,
        &f.child,
        &HistoryFilter {
            material_id: Some(f.poem.clone()),
            from: Some(t0 + Duration::minutes(1)),
            to: Some(t0 + Duration::hours(1)),
            limit: 0,
        },
    )
    .unwrap();
    assert_eq!(filtered.len(), 2);

    // An explicit session id numbers attempts within it.
    let s = |n: i64| {
        record_attempt(
            &f.store,
            NewAttempt {
                profile_id: f.child.clone(),
                material_id: f.other.clone(),
                transcript: Transcript::new("白日依山尽"),
                mode: Mode::Text,
                at: t0 + Duration::hours(n),
                duration_ms: None,
                session_id: Some("lesson-1".into()),
            },
            &TemplateTips,
        )
        .unwrap()
    };
    assert_eq!((s(2).attempt_no, s(5).attempt_no), (1, 2));
    let est = history::list(
        &f.store,
        &f.child,
        &HistoryFilter {
            material_id: Some(f.other.clone()),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(est[0].duration_estimated && est[0].duration_ms >= 3_000);
}

#[test]
fn patterns_are_deduplicated_and_counted() {
    let f = fixture("Asia/Shanghai");
    let t0 = at("2026-03-02T08:00:00+08:00");
    // 偷 and 媮 are the same sound: one pattern.
    let a = attempt(&f, &f.poem, TONE_SLIP, t0);
    assert_eq!(a.feedback.items[0].occurrence, 1);
    let b = attempt(
        &f,
        &f.poem,
        "床前明月光，疑是地上霜。举媮望明月，低头思故乡。",
        t0 + Duration::hours(2),
    );
    assert_eq!(b.feedback.items[0].occurrence, 2);
    // Leaving out 地上霜, then all of 疑是地上霜: one pattern by core text.
    attempt(
        &f,
        &f.poem,
        "床前明月光，疑是。举头望明月，低头思故乡。",
        t0 + Duration::hours(4),
    );
    let c = attempt(
        &f,
        &f.poem,
        "床前明月光，举头望明月，低头思故乡。",
        t0 + Duration::hours(6),
    );
    assert_eq!(c.feedback.items[0].occurrence, 2);
    let list = patterns::list(&f.store, &f.child, Some(&f.poem), 10).unwrap();
    assert_eq!(list.len(), 2, "{list:?}");
    assert!(list.iter().all(|p| p.occurrence_count == 2));
    let omission = list.iter().find(|p| p.error_type == "omission").unwrap();
    assert_eq!(omission.core_text, "疑是地上霜");
    assert!(omission.first_seen_at < omission.last_seen_at);
    // Another material keeps its own patterns.
    attempt(&f, &f.other, "白日依山尽，黄河入海流。欲穷千里目。", t0);
    assert_eq!(
        patterns::list(&f.store, &f.child, Some(&f.other), 10)
            .unwrap()
            .len(),
        1
    );
    assert_eq!(
        patterns::list(&f.store, &f.child, None, 10).unwrap().len(),
        3
    );
}

#[test]
fn uncertain_errors_are_not_counted_as_patterns() {
    let f = fixture("Asia/Shanghai");
    let n = TONE_SLIP.chars().count();
    let mut conf = vec![0.99f32; n];
    conf[13] = 0.4;
    let out = record_attempt(
        &f.store,
        NewAttempt {
            profile_id: f.child.clone(),
            material_id: f.poem.clone(),
            transcript: Transcript::with_confidences(TONE_SLIP, conf),
            mode: Mode::Voice,
            at: at("2026-03-02T08:00:00Z"),
            duration_ms: None,
            session_id: None,
        },
        &TemplateTips,
    )
    .unwrap();
    assert!(out.verdict.errors[0].uncertain);
    assert!(out.feedback.items[0].zh.contains("没听清"));
    assert!(patterns::list(&f.store, &f.child, None, 10)
        .unwrap()
        .is_empty());
}

#[test]
fn concurrent_attempts_lose_no_count() {
    let f = fixture("Asia/Shanghai");
    let threads = 4;
    let per_thread = 5;
    std::thread::scope(|s| {
        for k in 0..threads {
            let path = f.path.clone();
            let (child, poem) = (f.child.clone(), f.poem.clone());
            s.spawn(move || {
                // Each thread has its own connection, as separate processes would.
                let store = Store::open(&path).unwrap();
                for i in 0..per_thread {
                    record_attempt(
                        &store,
                        NewAttempt {
                            profile_id: child.clone(),
                            material_id: poem.clone(),
                            transcript: Transcript::new(TONE_SLIP),
                            mode: Mode::Voice,
                            at: at("2026-03-02T08:00:00Z")
                                + Duration::minutes(i64::from(k * 100 + i)),
                            duration_ms: None,
                            session_id: None,
                        },
                        &TemplateTips,
                    )
                    .unwrap();
                }
            });
        }
    });
    let list = patterns::list(&f.store, &f.child, None, 10).unwrap();
    assert_eq!(list.len(), 1);
    assert_eq!(list[0].occurrence_count, threads * per_thread);
    assert_eq!(
        history::list(
            &f.store,
            &f.child,
            &HistoryFilter {
                limit: 1000,
                ..Default::default()
            }
        )
        .unwrap()
        .len(),
        20
    );
}

/// A writer that counts its calls, standing in for an LLM-backed one.
struct Counting(AtomicUsize, bool);

impl TipWriter for Counting {
    fn write_tip(&self, r: &TipRequest) -> Result<Tip, TipError> {
        self.0.fetch_add(1, Ordering::SeqCst);
        if self.1 {
            return Err(TipError::Unavailable("offline".into()));
        }
        Ok(Tip {
            zh: format!("想象李白抬起头：「{}」要读第二声。", r.expected),
            en: format!("Picture Li Bai lifting his head: 「{}」 rises.", r.expected),
        })
    }
    fn source(&self) -> &'static str {
        "llm"
    }
}

#[test]
fn tips_are_written_once_per_pattern_and_cached() {
    let f = fixture("Asia/Shanghai");
    let writer = Counting(AtomicUsize::new(0), false);
    let t0 = at("2026-03-02T08:00:00Z");
    for k in 0..4 {
        let out = record_attempt(
            &f.store,
            NewAttempt {
                profile_id: f.child.clone(),
                material_id: f.poem.clone(),
                transcript: Transcript::new(TONE_SLIP),
                mode: Mode::Voice,
                at: t0 + Duration::hours(k),
                duration_ms: None,
                session_id: None,
            },
            &writer,
        )
        .unwrap();
        let item = &out.feedback.items[0];
        if k == 0 {
            assert!(item.tip.is_none());
        } else {
            assert!(
                item.tip.as_ref().unwrap().zh.contains("李白"),
                "{:?}",
                item.tip
            );
            assert!(item.zh.contains("李白"));
        }
    }
    assert_eq!(
        writer.0.load(Ordering::SeqCst),
        1,
        "generated once, then cached"
    );
    let p = &patterns::list(&f.store, &f.child, None, 1).unwrap()[0];
    assert_eq!(p.tip_source.as_deref(), Some("llm"));

    // A failing writer falls back to the template tip, which is cached too.
    let g = fixture("Asia/Shanghai");
    let down = Counting(AtomicUsize::new(0), true);
    for k in 0..3 {
        let out = record_attempt(
            &g.store,
            NewAttempt {
                profile_id: g.child.clone(),
                material_id: g.poem.clone(),
                transcript: Transcript::new(TONE_SLIP),
                mode: Mode::Voice,
                at: t0 + Duration::hours(k),
                duration_ms: None,
                session_id: None,
            },
            &down,
        )
        .unwrap();
        if k > 0 {
            assert!(out.feedback.items[0]
                .tip
                .as_ref()
                .unwrap()
                .zh
                .contains("tóu"));
        }
    }
    assert_eq!(down.0.load(Ordering::SeqCst), 1);
    let p = &patterns::list(&g.store, &g.child, None, 1).unwrap()[0];
    assert_eq!(p.tip_source.as_deref(), Some("template"));
}

#[test]
fn reviews_follow_fsrs_across_days() {
    let f = fixture("Asia/Shanghai");
    let t0 = at("2026-03-02T08:00:00+08:00");
    // Failing before the first pass creates no schedule.
    let fail = attempt(&f, &f.poem, "床前明月光", t0);
    assert!(fail.schedule.is_none());
    // The first pass creates it (a perfect first pass is capped at Good).
    let first = attempt(&f, &f.poem, POEM, t0 + Duration::minutes(2));
    let created = first.schedule.unwrap();
    assert!(created.created && created.rating == Rating::Good);
    // A retry in the same session is practice: no change.
    assert!(attempt(&f, &f.poem, POEM, t0 + Duration::minutes(4))
        .schedule
        .is_none());
    // Not due the same day; due on the scheduled day (local).
    assert!(schedule::due(&f.store, &f.child, t0 + Duration::hours(10))
        .unwrap()
        .is_empty());
    let due_day = t0 + Duration::days(created.interval_days);
    let due = schedule::due(&f.store, &f.child, due_day).unwrap();
    assert_eq!((due.len(), due[0].overdue_days), (1, 0));
    assert_eq!(
        schedule::due(&f.store, &f.child, due_day + Duration::days(3)).unwrap()[0].overdue_days,
        3
    );
    // A perfect review on time: Easy, a longer interval.
    let good = attempt(&f, &f.poem, POEM, due_day).schedule.unwrap();
    assert_eq!(good.rating, Rating::Easy);
    assert!(good.interval_days > created.interval_days);
    // A failed review: Again, a shorter interval, a lapse.
    let when = due_day + Duration::days(good.interval_days);
    let failed = attempt(&f, &f.poem, "床前明月光，疑是地上霜。", when)
        .schedule
        .unwrap();
    assert_eq!(failed.rating, Rating::Again);
    assert!(
        failed.interval_days < good.interval_days,
        "{} !< {}",
        failed.interval_days,
        good.interval_days
    );
    let row = history::list(&f.store, &f.child, &HistoryFilter::default()).unwrap();
    assert_eq!((row[0].rating, row[0].purpose), (Some(1), Purpose::Review));
    // A passing but imperfect review: Hard or Good by accuracy.
    let when = when + Duration::days(failed.interval_days);
    let hard = attempt(
        &f,
        &f.poem,
        "床前明月光，疑是地上霜。举头望明月，低头思故",
        when,
    )
    .schedule
    .unwrap();
    assert_eq!(hard.rating, Rating::Good, "95 %");
    let when = when + Duration::days(hard.interval_days);
    let hard = attempt(
        &f,
        &f.poem,
        "床前明月光，疑是地上霜。举头望明月，低头",
        when,
    )
    .schedule
    .unwrap();
    assert_eq!(hard.rating, Rating::Hard, "85 %");
}

#[test]
fn due_reviews_use_the_childs_day() {
    // The same schedule seen from two time zones: due 2026-03-04T00:30Z.
    for (tz, asked, due) in [
        // 2026-03-04 08:30 in Shanghai: due today at 08:30.
        ("Asia/Shanghai", "2026-03-04T07:00:00+08:00", true),
        ("Asia/Shanghai", "2026-03-03T23:59:00+08:00", false),
        // 2026-03-03 16:30 in Los Angeles: due "today" from the 3rd, local.
        ("America/Los_Angeles", "2026-03-03T09:00:00-08:00", true),
        ("America/Los_Angeles", "2026-03-02T23:00:00-08:00", false),
    ] {
        let f = fixture(tz);
        let first = attempt(&f, &f.poem, POEM, at("2026-03-02T00:30:00Z"))
            .schedule
            .unwrap();
        assert_eq!(
            first.next_review_at, "2026-03-04T00:30:00.000Z",
            "default FSRS: Good on a first pass is 2 days"
        );
        assert_eq!(
            !schedule::due(&f.store, &f.child, at(asked))
                .unwrap()
                .is_empty(),
            due,
            "{tz} at {asked}"
        );
    }
}

#[test]
fn the_pass_mark_is_a_profile_setting() {
    let f = fixture("Asia/Shanghai");
    let ninety = "床前明月光，疑是地上霜。举头望明月，低头思"; // 18/20
    assert!(attempt(&f, &f.poem, ninety, at("2026-03-02T00:00:00Z")).passed);
    f.store
        .settings()
        .set(Some(&f.child), PASS_THRESHOLD_SETTING, &95.0)
        .unwrap();
    let out = attempt(&f, &f.poem, ninety, at("2026-03-05T00:00:00Z"));
    assert!(!out.passed && out.pass_threshold == 95.0);
    f.store
        .settings()
        .set(Some(&f.child), PASS_THRESHOLD_SETTING, &140.0)
        .unwrap();
    let err = record_attempt(
        &f.store,
        NewAttempt {
            profile_id: f.child.clone(),
            material_id: f.poem.clone(),
            transcript: Transcript::new(POEM),
            mode: Mode::Voice,
            at: Utc::now(),
            duration_ms: None,
            session_id: None,
        },
        &TemplateTips,
    )
    .unwrap_err();
    assert!(err.to_string().contains("between 0 and 100"), "{err}");
}

#[test]
fn bad_attempts_are_refused_and_store_nothing() {
    let f = fixture("Asia/Shanghai");
    let parent = f
        .store
        .profiles()
        .add(NewProfile {
            kind: Some(ProfileKind::Parent),
            name: "妈妈".into(),
            pin: Some("1234".into()),
            ..Default::default()
        })
        .unwrap();
    let try_with = |profile: &str, material: &str, transcript: String| {
        record_attempt(
            &f.store,
            NewAttempt {
                profile_id: profile.into(),
                material_id: material.into(),
                transcript: Transcript::new(transcript),
                mode: Mode::Voice,
                at: Utc::now(),
                duration_ms: None,
                session_id: None,
            },
            &TemplateTips,
        )
    };
    assert!(try_with(&parent.id, &f.poem, POEM.into())
        .unwrap_err()
        .to_string()
        .contains("parent"));
    assert!(try_with("nobody", &f.poem, POEM.into())
        .unwrap_err()
        .to_string()
        .contains("not found"));
    assert!(try_with(&f.child, "nothing", POEM.into())
        .unwrap_err()
        .to_string()
        .contains("not found"));
    assert!(try_with(&f.child, &f.poem, "床".repeat(1_000_000))
        .unwrap_err()
        .to_string()
        .contains("too long"));
    assert!(history::list(&f.store, &f.child, &HistoryFilter::default())
        .unwrap()
        .is_empty());
    // Odd but checkable input is recorded.
    let ok = try_with(&f.child, &f.poem, "😀\u{0}床前明月光".into()).unwrap();
    assert_eq!(ok.verdict.correct, 5);
}

#[test]
fn daily_reports_use_the_childs_day_and_are_idempotent() {
    for (tz, counted_on) in [
        ("Asia/Shanghai", "2026-03-03"),
        ("America/New_York", "2026-03-02"),
    ] {
        let f = fixture(tz);
        // 2026-03-02T20:00Z is the 3rd in Shanghai (04:00) and the 2nd in New York (15:00).
        attempt(&f, &f.poem, TONE_SLIP, at("2026-03-02T20:00:00Z"));
        let day = NaiveDate::parse_from_str(counted_on, "%Y-%m-%d").unwrap();
        let r = report::generate(
            &f.store,
            &f.child,
            ReportType::Daily,
            day,
            at("2026-03-04T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(r.summary.attempts, 1, "{tz}");
        let other = if tz == "Asia/Shanghai" {
            day - Duration::days(1)
        } else {
            day + Duration::days(1)
        };
        let r2 = report::generate(
            &f.store,
            &f.child,
            ReportType::Daily,
            other,
            at("2026-03-04T00:00:00Z"),
        )
        .unwrap();
        assert_eq!(r2.summary.attempts, 0, "{tz}");
        // Regenerating overwrites.
        attempt(&f, &f.poem, POEM, at("2026-03-02T20:10:00Z"));
        let again = report::generate(
            &f.store,
            &f.child,
            ReportType::Daily,
            day,
            at("2026-03-04T01:00:00Z"),
        )
        .unwrap();
        assert_eq!(again.summary.attempts, 2);
        assert_eq!(report::count(&f.store, &f.child).unwrap(), 2);
        let stored = report::stored(&f.store, &f.child, ReportType::Daily, day)
            .unwrap()
            .unwrap();
        assert_eq!(stored, again);
    }
}

#[test]
fn weekly_reports_compare_weeks_and_name_weak_points() {
    let f = fixture("Asia/Shanghai");
    // Week of Monday 2026-03-02: three attempts, one poor material.
    attempt(&f, &f.poem, "床前明月光", at("2026-03-02T09:00:00+08:00"));
    attempt(&f, &f.poem, POEM, at("2026-03-02T09:05:00+08:00"));
    attempt(
        &f,
        &f.other,
        "白日依山尽，黄河入海流。",
        at("2026-03-04T19:00:00+08:00"),
    );
    // The week before: one perfect attempt; the week after: nothing.
    attempt(
        &f,
        &f.other,
        "白日依山尽，黄河入海流。欲穷千里目，更上一层楼。",
        at("2026-02-25T19:00:00+08:00"),
    );
    let r = report::generate(
        &f.store,
        &f.child,
        ReportType::Weekly,
        NaiveDate::from_ymd_opt(2026, 3, 5).unwrap(),
        Utc::now(),
    )
    .unwrap();
    assert_eq!(
        r.report_date,
        NaiveDate::from_ymd_opt(2026, 3, 2).unwrap(),
        "stored under its Monday"
    );
    assert_eq!(r.period_start, "2026-03-01T16:00:00.000Z");
    assert_eq!(r.period_end, "2026-03-08T16:00:00.000Z");
    let s = &r.summary;
    assert_eq!(
        (s.attempts, s.passes, s.first_passes, s.materials_practised),
        (3, 1, 1, 2)
    );
    assert_eq!(s.minutes, 1.5);
    assert_eq!(
        s.average_accuracy,
        Some(round2((25.0 + 100.0 + 50.0) / 3.0))
    );
    assert_eq!(r.previous.attempts, 1);
    assert_eq!(r.trend.attempts, 2);
    assert_eq!(r.trend.direction, "down");
    assert_eq!(r.days.len(), 7);
    assert_eq!(
        r.days.iter().map(|d| d.attempts).collect::<Vec<_>>(),
        [2, 0, 1, 0, 0, 0, 0]
    );
    assert_eq!(r.weakest_materials[0].title, "登鹳雀楼");
    assert_eq!(r.weakest_materials[0].average_accuracy, 50.0);
    assert!(r
        .top_patterns
        .iter()
        .any(|p| p.title == "静夜思" && p.error_type == "omission"));
    let same_week = report::generate(
        &f.store,
        &f.child,
        ReportType::Weekly,
        NaiveDate::from_ymd_opt(2026, 3, 8).unwrap(),
        Utc::now(),
    )
    .unwrap();
    assert_eq!(same_week.report_date, r.report_date);
    assert_eq!(report::count(&f.store, &f.child).unwrap(), 1);
}

fn round2(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}

#[test]
fn mastery_comes_from_long_review_intervals() {
    let f = fixture("Asia/Shanghai");
    let mut when = Utc.with_ymd_and_hms(2026, 1, 5, 1, 0, 0).unwrap();
    let mut last = 0;
    for _ in 0..8 {
        let out = attempt(&f, &f.poem, POEM, when);
        last = out.schedule.unwrap().interval_days;
        if last >= schedule::MASTERED_INTERVAL_DAYS {
            break;
        }
        when += Duration::days(last);
    }
    assert!(
        last >= schedule::MASTERED_INTERVAL_DAYS,
        "intervals never reached three weeks: {last}"
    );
    let day = when.with_timezone(&chrono_tz::Asia::Shanghai).date_naive();
    let r = report::generate(&f.store, &f.child, ReportType::Daily, day, Utc::now()).unwrap();
    assert_eq!(r.summary.materials_mastered, 1);
}
