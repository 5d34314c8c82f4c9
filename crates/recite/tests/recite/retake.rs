//! Re-takes of an unclear line against a real SQLite store: the take is
//! merged into the same attempt (same id, no new attempt), what the attempt
//! said before is kept, an error the take made certain is counted as a
//! pattern, the review schedule is graded again as if the attempt had been
//! heard right the first time, and bad re-takes are refused with nothing
//! written.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use chrono::{DateTime, Utc};
use deskmate_recite::history::{self, HistoryFilter};
use deskmate_recite::practice::{record_attempt, AttemptOutcome, NewAttempt};
use deskmate_recite::retake::{record_retake, RetakeAttempt};
use deskmate_recite::schedule;
use deskmate_recite::{patterns, Mode, ReciteError, TemplateTips, Transcript};
use deskmate_store::{NewMaterial, NewProfile, Store};

const POEM: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";
/// Line 2 heard as four other sounds, all with low confidence: 80 %, a
/// re-ask of line 2, not a pass.
const LINE_2_UNCLEAR: &str = "床前明月光，七八九十霜。举头望明月，低头思故乡。";

struct Fixture {
    _dir: tempfile::TempDir,
    store: Store,
    child: String,
    poem: String,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("deskmate.sqlite3")).unwrap();
    let child = store
        .profiles()
        .add(NewProfile {
            name: "小明".into(),
            time_zone: Some("Asia/Shanghai".into()),
            ..Default::default()
        })
        .unwrap()
        .id;
    store
        .materials()
        .upsert_builtin(&[NewMaterial {
            slug: Some("jys".into()),
            lang: "zh".into(),
            title: "静夜思".into(),
            body: POEM.into(),
            ..Default::default()
        }])
        .unwrap();
    Fixture {
        _dir: dir,
        store,
        child,
        poem: deskmate_store::builtin_id("jys"),
    }
}

fn at(s: &str) -> DateTime<Utc> {
    DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
}

/// `text` heard with confidence 0.3 at the char indices `unsure`.
fn heard(text: &str, unsure: &[usize]) -> Transcript {
    let mut conf = vec![0.99f32; text.chars().count()];
    for &i in unsure {
        conf[i] = 0.3;
    }
    Transcript::with_confidences(text, conf)
}

fn recite(f: &Fixture, t: Transcript, when: &str) -> AttemptOutcome {
    record_attempt(
        &f.store,
        NewAttempt {
            profile_id: f.child.clone(),
            material_id: f.poem.clone(),
            transcript: t,
            mode: Mode::Voice,
            at: at(when),
            duration_ms: Some(8_000),
            session_id: None,
        },
        &TemplateTips,
    )
    .unwrap()
}

fn retake(
    f: &Fixture,
    attempt_id: &str,
    line: usize,
    t: Transcript,
) -> Result<AttemptOutcome, ReciteError> {
    record_retake(
        &f.store,
        RetakeAttempt {
            attempt_id: attempt_id.into(),
            line,
            transcript: t,
            at: Utc::now(),
        },
        &TemplateTips,
    )
}

fn retakes(f: &Fixture) -> i64 {
    f.store
        .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM recite_retakes", [], |r| r.get(0))?))
        .unwrap()
}

#[test]
fn a_clear_take_passes_the_same_attempt_and_schedules_the_review() {
    let f = fixture();
    let first = recite(
        &f,
        heard(LINE_2_UNCLEAR, &[6, 7, 8, 9]),
        "2026-03-02T08:00:00Z",
    );
    assert!(!first.passed, "{:?}", first.verdict);
    assert!(first
        .verdict
        .errors
        .iter()
        .all(|e| e.uncertain && e.line == 2));
    assert!(
        first.feedback.zh.contains("第二句"),
        "{}",
        first.feedback.zh
    );
    assert!(first.schedule.is_none());

    let merged = retake(&f, &first.attempt_id, 2, heard("疑是地上霜", &[])).unwrap();
    assert_eq!(merged.attempt_id, first.attempt_id);
    assert!(
        merged.verdict.errors.is_empty(),
        "{:?}",
        merged.verdict.errors
    );
    assert_eq!(
        (merged.verdict.accuracy, merged.passed, merged.first_pass),
        (100.0, true, true)
    );
    assert!(merged.schedule.as_ref().is_some_and(|s| s.created));
    assert!(
        merged.feedback.zh.contains("太棒了"),
        "{}",
        merged.feedback.zh
    );

    // One attempt, updated in place; what it said before is kept.
    let all = history::list(&f.store, &f.child, &HistoryFilter::default()).unwrap();
    assert_eq!(all.len(), 1);
    let row = &all[0];
    assert_eq!(
        (row.id.as_str(), row.accuracy, row.passed, row.first_pass),
        (first.attempt_id.as_str(), 100.0, true, true)
    );
    assert!(row.errors.is_empty());
    assert_eq!(row.rating, merged.schedule.as_ref().map(|s| s.rating as u8));
    let kept: (String, f64, bool) = f
        .store
        .with_conn(|c| {
            Ok(c.query_row(
                "SELECT errors_before, accuracy_before, passed_before FROM recite_retakes WHERE attempt_id = ?1 AND line = 2",
                [&first.attempt_id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )?)
        })
        .unwrap();
    assert_eq!(kept.1, 80.0);
    assert!(!kept.2);
    assert_eq!(
        kept.0.matches("\"uncertain\":true").count(),
        4,
        "{}",
        kept.0
    );
    assert_eq!(
        schedule::due(&f.store, &f.child, at("2026-04-30T08:00:00Z"))
            .unwrap()
            .len(),
        1
    );
}

#[test]
fn a_slip_in_the_take_is_the_childs_error_and_a_pattern() {
    let f = fixture();
    let first = recite(
        &f,
        heard(LINE_2_UNCLEAR, &[6, 7, 8, 9]),
        "2026-03-02T08:00:00Z",
    );
    // Said again: 疑是地上 right, 霜 as 光 (clearly heard).
    let merged = retake(&f, &first.attempt_id, 2, heard("疑是地上光", &[])).unwrap();
    // 七八九十 were unclear and said right this time; 霜 was right before and stays right.
    assert!(
        merged.verdict.errors.is_empty(),
        "{:?}",
        merged.verdict.errors
    );

    let f = fixture();
    let unclear_frost = "床前明月光，疑是地上光。举头望明月，低头思故乡。";
    let first = recite(&f, heard(unclear_frost, &[10]), "2026-03-02T08:00:00Z");
    assert_eq!(first.verdict.errors.len(), 1);
    assert!(first.verdict.errors[0].uncertain);
    assert!(patterns::list(&f.store, &f.child, None, 10)
        .unwrap()
        .is_empty());
    let merged = retake(&f, &first.attempt_id, 2, heard("疑是地上光", &[])).unwrap();
    assert_eq!(merged.verdict.errors.len(), 1);
    assert!(!merged.verdict.errors[0].uncertain);
    assert_eq!(merged.verdict.accuracy, first.verdict.accuracy);
    assert!(
        merged.feedback.zh.contains("说成了"),
        "{}",
        merged.feedback.zh
    );
    let found = patterns::list(&f.store, &f.child, None, 10).unwrap();
    assert_eq!(found.len(), 1);
    assert_eq!(
        (found[0].expected.as_str(), found[0].actual.as_str()),
        ("霜", "光")
    );
    let error_count: i64 = f
        .store
        .with_conn(|c| {
            Ok(c.query_row(
                "SELECT error_count FROM recite_attempts WHERE id = ?1",
                [&first.attempt_id],
                |r| r.get(0),
            )?)
        })
        .unwrap();
    assert_eq!(error_count, 1);
}

#[test]
fn a_review_graded_again_matches_one_heard_right_the_first_time() {
    // Two children's histories side by side: learnt on day 1; reviewed on
    // day 4 — one heard clean, one with line 2 unclear and then said again.
    let clean = fixture();
    let retaken = fixture();
    for f in [&clean, &retaken] {
        recite(f, Transcript::new(POEM), "2026-03-01T08:00:00Z");
    }
    let a = recite(&clean, Transcript::new(POEM), "2026-03-04T08:00:00Z");
    let b = recite(
        &retaken,
        heard("床前明月光，疑是地上光。举头望明月，低头思故乡。", &[10]),
        "2026-03-04T08:00:00Z",
    );
    assert_ne!(
        a.schedule.as_ref().unwrap().rating,
        b.schedule.as_ref().unwrap().rating
    );
    let merged = retake(&retaken, &b.attempt_id, 2, heard("疑是地上霜", &[])).unwrap();
    assert_eq!(
        merged.schedule.as_ref().unwrap().rating,
        a.schedule.as_ref().unwrap().rating
    );
    assert_eq!(
        merged.schedule.as_ref().unwrap().interval_days,
        a.schedule.as_ref().unwrap().interval_days
    );
    let card = |f: &Fixture| {
        f.store
            .with_conn(|c| {
                Ok(c.query_row(
                    "SELECT reps, lapses, interval_days, next_review_at, stability FROM recite_reviews",
                    [],
                    |r| Ok((r.get::<_, i64>(0)?, r.get::<_, i64>(1)?, r.get::<_, i64>(2)?, r.get::<_, String>(3)?, r.get::<_, f64>(4)?)),
                )?)
            })
            .unwrap()
    };
    assert_eq!(
        card(&retaken),
        card(&clean),
        "reviewed once, as if heard right"
    );
}

#[test]
fn bad_retakes_are_refused_and_write_nothing() {
    let f = fixture();
    let first = recite(
        &f,
        heard(LINE_2_UNCLEAR, &[6, 7, 8, 9]),
        "2026-03-02T08:00:00Z",
    );
    // A line heard clearly.
    let e = retake(&f, &first.attempt_id, 1, heard("床前明月光", &[])).unwrap_err();
    assert!(e.to_string().contains("heard clearly"), "{e}");
    // No such line, no such attempt.
    let e = retake(&f, &first.attempt_id, 9, heard("床前明月光", &[])).unwrap_err();
    assert!(e.to_string().contains("no line 9"), "{e}");
    let e = retake(&f, "no-such-attempt", 2, heard("疑是地上霜", &[])).unwrap_err();
    assert_eq!(e.code(), "not_found");
    assert_eq!(retakes(&f), 0);

    // Unclear again: stays a question, and is not asked a second time.
    let again = retake(&f, &first.attempt_id, 2, heard("七八九十霜", &[0, 1, 2, 3])).unwrap();
    let json = |e: &[deskmate_recite::RecitationError]| serde_json::to_value(e).unwrap();
    assert_eq!(json(&again.verdict.errors), json(&first.verdict.errors));
    assert!(!again.passed);
    let e = retake(&f, &first.attempt_id, 2, heard("疑是地上霜", &[])).unwrap_err();
    assert!(e.to_string().contains("already said again"), "{e}");
    assert_eq!(retakes(&f), 1);
    let row = history::get(&f.store, &first.attempt_id).unwrap();
    assert_eq!(row.accuracy, 80.0);

    // A typed attempt is never asked again.
    let typed = record_attempt(
        &f.store,
        NewAttempt {
            profile_id: f.child.clone(),
            material_id: f.poem.clone(),
            transcript: Transcript::new(LINE_2_UNCLEAR),
            mode: Mode::Text,
            at: at("2026-03-02T08:05:00Z"),
            duration_ms: None,
            session_id: None,
        },
        &TemplateTips,
    )
    .unwrap();
    let e = retake(&f, &typed.attempt_id, 2, heard("疑是地上霜", &[])).unwrap_err();
    assert!(e.to_string().contains("typed"), "{e}");
}
