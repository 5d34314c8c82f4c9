//! Recording an attempt: check it, then in one transaction store it in the
//! history, count its errors into the child's patterns and update the review
//! schedule; then fetch memory tips for repeated errors (outside the
//! transaction: an LLM may be slow) and compose the feedback.

use std::time::Instant;

use chrono::{DateTime, Duration, Utc};
use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use deskmate_store::{Store, StoreError};

use crate::feedback::{self, Feedback};
use crate::history::Purpose;
use crate::patterns::{self, PatternHit};
use crate::schedule::{self, ScheduleChange};
use crate::tips::{write_tip_or_template, Tip, TipRequest, TipWriter};
use crate::{
    check, ts, Lang, Mode, ReciteError, Reference, Transcript, Verdict, DEFAULT_PASS_THRESHOLD,
    PASS_THRESHOLD_SETTING,
};

/// Attempts at one material less than this apart belong to one session.
pub const SESSION_GAP_MINUTES: i64 = 30;

/// One attempt to record.
#[derive(Debug, Clone)]
pub struct NewAttempt {
    pub profile_id: String,
    pub material_id: String,
    pub transcript: Transcript,
    pub mode: Mode,
    /// When the child recited (the clock is the caller's, so tests can fix it).
    pub at: DateTime<Utc>,
    /// How long the child recited; estimated from the text when unknown.
    pub duration_ms: Option<u64>,
    /// The practice session, when the caller tracks one; otherwise attempts at
    /// the same material less than [`SESSION_GAP_MINUTES`] apart form one.
    pub session_id: Option<String>,
}

/// What recording an attempt produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AttemptOutcome {
    pub attempt_id: String,
    pub material_id: String,
    pub title: String,
    pub verdict: Verdict,
    pub passed: bool,
    pub pass_threshold: f64,
    pub first_pass: bool,
    pub purpose: Purpose,
    pub session_id: String,
    pub attempt_no: u32,
    /// What the attempt did to the review schedule, if anything.
    pub schedule: Option<ScheduleChange>,
    pub feedback: Feedback,
}

/// A child's pass mark: the profile's `recite.pass_threshold` setting, or 85.
pub fn pass_threshold(store: &Store, profile_id: &str) -> Result<f64, ReciteError> {
    let t = store
        .settings()
        .get::<f64>(Some(profile_id), PASS_THRESHOLD_SETTING)?
        .unwrap_or(DEFAULT_PASS_THRESHOLD);
    if !(0.0..=100.0).contains(&t) || t.is_nan() {
        return Err(ReciteError::Invalid(format!(
            "the pass mark setting {PASS_THRESHOLD_SETTING} is {t}; it must be between 0 and 100"
        )));
    }
    Ok(t)
}

/// A rough speaking time when the caller did not measure one: 0.45 s per
/// Chinese character, 0.5 s per English word recited, at least 3 s.
fn estimated_duration_ms(units: usize, lang: Lang) -> u64 {
    let per_unit = match lang {
        Lang::Zh => 450,
        Lang::En => 500,
    };
    (units as u64 * per_unit).max(3_000)
}

/// Roughly how many units were said or typed.
fn recited_units(text: &str, lang: Lang) -> usize {
    let normalized = crate::normalize(text, lang);
    match lang {
        Lang::Zh => normalized.chars().filter(|c| !c.is_whitespace()).count(),
        Lang::En => normalized.split_whitespace().count(),
    }
}

/// Checks and records one attempt (history, patterns, schedule), then
/// composes feedback with memory tips from `tips` for repeated errors.
pub fn record_attempt(
    store: &Store,
    new: NewAttempt,
    tips: &dyn TipWriter,
) -> Result<AttemptOutcome, ReciteError> {
    let profile = store.profiles().get(&new.profile_id)?;
    if profile.kind != deskmate_store::ProfileKind::Child {
        return Err(ReciteError::Invalid(format!(
            "{} is a parent profile; attempts are recorded for children",
            profile.name
        )));
    }
    let material = store.materials().get(&new.material_id)?;
    let threshold = pass_threshold(store, &new.profile_id)?;
    let lang: Lang = material.lang.parse()?;
    let reference = Reference::new(&material.body, Some(lang))?;
    let started = Instant::now();
    let verdict = check(&reference, &new.transcript, new.mode)?;
    let check_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
    let passed = verdict.passed(threshold);
    let perfect = verdict.is_perfect();
    let at = ts(new.at);
    let attempt_id = uuid::Uuid::now_v7().to_string();
    let (duration_ms, estimated) = match new.duration_ms {
        Some(d) => (d, false),
        None => (
            estimated_duration_ms(recited_units(&new.transcript.text, lang), lang),
            true,
        ),
    };
    let errors_json = serde_json::to_string(&verdict.errors)
        .map_err(|e| ReciteError::Invalid(format!("cannot store the errors: {e}")))?;

    let (session_id, attempt_no, purpose, first_pass, change, hits) = store.with_conn(|c| {
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let (session_id, attempt_no) = session(&tx, &new, &attempt_id)?;
        let card = schedule::load(&tx, &new.profile_id, &new.material_id)?;
        // A session keeps the purpose it started with: retrying right after a
        // first pass is still learning.
        let session_purpose: Option<String> = if attempt_no > 1 {
            tx.query_row(
                "SELECT purpose FROM recite_attempts WHERE profile_id = ?1 AND session_id = ?2 ORDER BY created_at LIMIT 1",
                params![new.profile_id, session_id],
                |r| r.get(0),
            )
            .optional()?
        } else {
            None
        };
        let purpose = match session_purpose.as_deref() {
            Some("learn") => Purpose::Learn,
            Some(_) => Purpose::Review,
            None if card.is_some() => Purpose::Review,
            None => Purpose::Learn,
        };
        let passed_before: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM recite_attempts WHERE profile_id = ?1 AND material_id = ?2 AND passed = 1)",
            params![new.profile_id, new.material_id],
            |r| r.get(0),
        )?;
        let first_pass = passed && !passed_before;
        let rating = schedule::rating_for(verdict.accuracy, threshold, perfect);
        let graded = schedule::Graded { rating, passed, first_in_session: attempt_no == 1, at: new.at };
        let change = schedule::apply(&tx, card.as_ref(), &new.profile_id, &new.material_id, graded)?;
        tx.execute(
            &format!(
                "INSERT INTO recite_attempts ({}, error_count) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15,
                 ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23)",
                crate::history::COLUMNS
            ),
            params![
                attempt_id,
                new.profile_id,
                new.material_id,
                new.mode.as_str(),
                lang.as_str(),
                new.transcript.text,
                verdict.units as i64,
                verdict.correct as i64,
                verdict.accuracy,
                threshold,
                passed,
                first_pass,
                errors_json,
                i64::try_from(duration_ms).unwrap_or(i64::MAX),
                estimated,
                i64::try_from(check_us).unwrap_or(i64::MAX),
                session_id,
                attempt_no,
                purpose.as_str(),
                change.as_ref().map(|c| c.rating as u8),
                change.as_ref().map(|c| c.interval_days),
                at,
                // The errors the child is told about; an uncertain span is a
                // request to say it again, not an error.
                verdict.errors.iter().filter(|e| !e.uncertain).count() as i64
            ],
        )?;
        if change.is_some() {
            // Kept so a re-take of an unclear line can grade the schedule again.
            let before = crate::retake::recording::card_before_json(card.as_ref())
                .map_err(|e| StoreError::Invalid(e.to_string()))?;
            tx.execute(
                "UPDATE recite_attempts SET schedule_before = ?2 WHERE id = ?1",
                params![attempt_id, before],
            )?;
        }
        let certain: Vec<_> = verdict.errors.iter().filter(|e| !e.uncertain).collect();
        let counted = patterns::record(&tx, &new.profile_id, &new.material_id, new.mode, &certain, &attempt_id, &at)?;
        tx.commit()?;
        // One hit per error, in the verdict's order (uncertain errors: none).
        let mut counted = counted.into_iter();
        let hits: Vec<Option<PatternHit>> =
            verdict.errors.iter().map(|e| if e.uncertain { None } else { counted.next() }).collect();
        Ok((session_id, attempt_no, purpose, first_pass, change, hits))
    })?;

    // Tips for repeated errors: cached on the pattern, written once — also
    // when two errors of this attempt fell into one pattern.
    let mut occurrences = Vec::with_capacity(hits.len());
    let mut tip_list: Vec<Option<Tip>> = Vec::with_capacity(hits.len());
    let mut written: Vec<(&str, Tip)> = Vec::new();
    for (e, hit) in verdict.errors.iter().zip(&hits) {
        let Some(hit) = hit else {
            occurrences.push(1);
            tip_list.push(None);
            continue;
        };
        occurrences.push(hit.occurrences);
        let tip = match (&hit.tip, hit.occurrences) {
            (Some(t), _) => Some(t.clone()),
            (None, n) if n >= 2 => match written.iter().find(|(id, _)| *id == hit.pattern_id) {
                Some((_, t)) => Some(t.clone()),
                None => {
                    let req = TipRequest::from_error(&reference, e, new.mode, &material.title, n);
                    let (tip, source) = write_tip_or_template(tips, &req);
                    let tip =
                        patterns::cache_tip(store, &hit.pattern_id, &tip, source, &ts(Utc::now()))?;
                    written.push((&hit.pattern_id, tip.clone()));
                    Some(tip)
                }
            },
            _ => None,
        };
        tip_list.push(tip);
    }
    let feedback = feedback::compose(&reference, &verdict, threshold, &occurrences, &tip_list);
    Ok(AttemptOutcome {
        attempt_id,
        material_id: material.id,
        title: material.title,
        verdict,
        passed,
        pass_threshold: threshold,
        first_pass,
        purpose,
        session_id,
        attempt_no,
        schedule: change,
        feedback,
    })
}

/// The session an attempt belongs to and its number in it, decided inside the
/// caller's write transaction so that attempts recorded at the same moment by
/// several processes (or, with sync, several devices) get what one-at-a-time
/// recording gives: one session, numbers 1, 2, 3, … with none repeated.
///
/// Without an explicit session, the attempt joins the session of the attempt
/// nearest to it in time, before *or after*, when that is at most
/// [`SESSION_GAP_MINUTES`] away: a process that read its clock first may
/// commit last. Its number is one more than the highest in that session, so
/// numbers follow the order attempts were recorded in.
fn session(
    tx: &rusqlite::Transaction<'_>,
    new: &NewAttempt,
    attempt_id: &str,
) -> Result<(String, u32), StoreError> {
    let next_no = |sid: &str| -> Result<u32, StoreError> {
        let highest: u32 = tx.query_row(
            "SELECT coalesce(max(attempt_no), 0) FROM recite_attempts WHERE profile_id = ?1 AND session_id = ?2",
            params![new.profile_id, sid],
            |r| r.get(0),
        )?;
        Ok(highest + 1)
    };
    if let Some(sid) = &new.session_id {
        return Ok((sid.clone(), next_no(sid)?));
    }
    let at = ts(new.at);
    let neighbour = |sql: &str| -> Result<Option<(String, DateTime<Utc>)>, StoreError> {
        let row: Option<(String, String)> = tx
            .query_row(sql, params![new.profile_id, new.material_id, at], |r| {
                Ok((r.get(0)?, r.get(1)?))
            })
            .optional()?;
        row.map(|(sid, created)| Ok((sid, crate::parse_ts(&created)?)))
            .transpose()
    };
    let before = neighbour(
        "SELECT session_id, created_at FROM recite_attempts
         WHERE profile_id = ?1 AND material_id = ?2 AND created_at <= ?3
         ORDER BY created_at DESC LIMIT 1",
    )?;
    let after = neighbour(
        "SELECT session_id, created_at FROM recite_attempts
         WHERE profile_id = ?1 AND material_id = ?2 AND created_at > ?3
         ORDER BY created_at ASC LIMIT 1",
    )?;
    let gap = |t: DateTime<Utc>| (new.at - t).num_milliseconds().abs();
    let nearest = [before, after]
        .into_iter()
        .flatten()
        .filter(|(_, t)| gap(*t) <= Duration::minutes(SESSION_GAP_MINUTES).num_milliseconds())
        .min_by_key(|(_, t)| gap(*t));
    match nearest {
        Some((sid, _)) => {
            let no = next_no(&sid)?;
            Ok((sid, no))
        }
        None => Ok((attempt_id.to_string(), 1)),
    }
}
