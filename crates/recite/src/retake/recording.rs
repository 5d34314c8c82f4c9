//! Recording a re-take: in one transaction the take is merged into the
//! attempt's stored verdict ([`super::merge_line`]), the attempt's row is
//! updated in place (same id: accuracy, pass, first pass, errors, the
//! errors told, the rating and interval), what the row said before is kept
//! in `recite_retakes`, the errors the take made certain are counted into
//! the child's patterns, and the review schedule is graded again when the
//! rating changed; then the feedback on the merged verdict is composed.
//!
//! The schedule is graded again only when it can be done exactly: the card
//! as it was before the attempt is stored with the attempt
//! (`recite_attempts.schedule_before`), and no later attempt at the material
//! has been recorded since. Otherwise the schedule keeps what the attempt
//! gave it (an attempt recorded before this column existed, or a re-take
//! after the child went on), and the row's rating says which.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension, TransactionBehavior};
use serde::{Deserialize, Serialize};

use deskmate_store::Store;

use crate::feedback;
use crate::history::{self, AttemptRecord};
use crate::patterns::{self, PatternHit};
use crate::practice::AttemptOutcome;
use crate::schedule::{self, Graded, ReviewCard, ScheduleChange};
use crate::tips::{write_tip_or_template, Tip, TipRequest, TipWriter};
use crate::verdict::LineScore;
use crate::{
    check, parse_ts, ts, Lang, Mode, RecitationError, ReciteError, Reference, Transcript, Verdict,
};

use super::{line_reference, merge_line, unclear_lines};

/// How many times one line of one attempt may be said again.
pub const RETAKES_PER_LINE: u32 = 1;

/// One re-take to record.
#[derive(Debug, Clone)]
pub struct RetakeAttempt {
    /// The attempt whose verdict re-asked the line.
    pub attempt_id: String,
    /// The line said again, 1-based.
    pub line: usize,
    /// What was heard of the line (with confidences: the fair verdict's).
    pub transcript: Transcript,
    pub at: DateTime<Utc>,
}

/// The review card before an attempt changed it, as stored in
/// `recite_attempts.schedule_before`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(crate) struct CardBefore {
    pub card: Option<ReviewCard>,
}

pub(crate) fn card_before_json(card: Option<&ReviewCard>) -> Result<String, ReciteError> {
    serde_json::to_string(&CardBefore {
        card: card.cloned(),
    })
    .map_err(|e| ReciteError::Invalid(format!("cannot store the review card: {e}")))
}

/// The stored attempt as a verdict: its count, errors, and each line's score
/// from the errors on it.
fn stored_verdict(reference: &Reference, record: &AttemptRecord, mode: Mode) -> Verdict {
    let lang = reference.lang();
    let units_on = |line: usize| -> usize {
        record
            .errors
            .iter()
            .filter(|e| e.line == line)
            .map(|e| match e.error_type {
                crate::ErrorType::Insertion | crate::ErrorType::Order => 0,
                _ => match lang {
                    Lang::Zh => e.expected.chars().filter(|c| !c.is_whitespace()).count(),
                    Lang::En => e.expected.split_whitespace().count(),
                },
            })
            .sum()
    };
    let lines = reference
        .lines()
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let units = l.end - l.start;
            LineScore {
                line: i + 1,
                text: l.text.clone(),
                units,
                correct: units.saturating_sub(units_on(i + 1)),
            }
        })
        .collect();
    Verdict {
        lang,
        mode,
        units: record.units,
        correct: record.correct,
        accuracy: record.accuracy,
        errors: record.errors.clone(),
        lines,
        fillers: 0,
        restarted: 0,
    }
}

fn refuse(why: String) -> ReciteError {
    ReciteError::Invalid(why)
}

/// Merges a re-take of one unclear line into its attempt and records it (see
/// the module documentation). Refused, with nothing written: an attempt not
/// spoken, a line the verdict did not re-ask, a line already said again.
pub fn record_retake(
    store: &Store,
    retake: RetakeAttempt,
    tips: &dyn TipWriter,
) -> Result<AttemptOutcome, ReciteError> {
    let record = history::get(store, &retake.attempt_id)?;
    let material = store.materials().get(&record.material_id)?;
    let lang: Lang = material.lang.parse()?;
    let mode: Mode = record.mode.parse()?;
    if mode != Mode::Voice {
        return Err(refuse(
            "only a spoken recitation is asked again line by line; this one was typed".into(),
        ));
    }
    let reference = Reference::new(&material.body, Some(lang))?;
    let line_ref = line_reference(&reference, retake.line)?;
    let take = check(&line_ref, &retake.transcript, mode)?;
    let threshold = record.pass_threshold;
    let at = ts(retake.at);
    let retake_id = uuid::Uuid::now_v7().to_string();

    let done = store.with_conn(|c| {
        let tx = c.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Read again inside the write lock: another re-take may have landed.
        let record: AttemptRecord = tx.query_row(
            &format!("SELECT {} FROM recite_attempts WHERE id = ?1", history::COLUMNS),
            [&retake.attempt_id],
            history::from_row,
        )?;
        let taken: u32 = tx.query_row(
            "SELECT count(*) FROM recite_retakes WHERE attempt_id = ?1 AND line = ?2",
            params![record.id, retake.line as i64],
            |r| r.get(0),
        )?;
        if taken >= RETAKES_PER_LINE {
            return Ok(Err(refuse(format!(
                "line {} of this attempt was already said again; what is still unclear stays a question",
                retake.line
            ))));
        }
        if !unclear_lines(&record.errors).contains(&retake.line) {
            return Ok(Err(refuse(format!(
                "line {} of this attempt was heard clearly; there is nothing to say again",
                retake.line
            ))));
        }
        let before = stored_verdict(&reference, &record, mode);
        let merged = merge_line(&before, retake.line, &take);
        let passed = merged.passed(threshold);
        let perfect = merged.is_perfect();
        let created = parse_ts(&record.created_at)?;
        let passed_before: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM recite_attempts WHERE profile_id = ?1 AND material_id = ?2
               AND passed = 1 AND id <> ?3 AND created_at <= ?4)",
            params![record.profile_id, record.material_id, record.id, record.created_at],
            |r| r.get(0),
        )?;
        let first_pass = passed && !passed_before;

        // The schedule, graded again when the rating changed and it can be done exactly.
        let rating = schedule::rating_for(merged.accuracy, threshold, perfect);
        let mut change: Option<ScheduleChange> = None;
        let mut rating_kept = record.rating;
        let mut interval_kept = record.interval_days;
        let mut schedule_before: Option<String> = None;
        let same = record.rating == Some(rating as u8) || (record.rating.is_none() && passed == record.passed);
        let later: bool = tx.query_row(
            "SELECT EXISTS (SELECT 1 FROM recite_attempts WHERE profile_id = ?1 AND material_id = ?2 AND created_at > ?3)",
            params![record.profile_id, record.material_id, record.created_at],
            |r| r.get(0),
        )?;
        if !same && !later {
            let stored: Option<String> = tx
                .query_row(
                    "SELECT schedule_before FROM recite_attempts WHERE id = ?1",
                    [&record.id],
                    |r| r.get(0),
                )
                .optional()?
                .flatten();
            let card_before: Option<Option<ReviewCard>> = match (record.rating, stored) {
                // The attempt changed nothing: grade against the card as it is.
                (None, _) => Some(schedule::load(&tx, &record.profile_id, &record.material_id)?),
                (Some(_), Some(json)) => serde_json::from_str::<CardBefore>(&json).ok().map(|b| b.card),
                (Some(_), None) => None,
            };
            if let Some(card) = card_before {
                if record.rating.is_some() {
                    schedule::restore(&tx, &record.profile_id, &record.material_id, card.as_ref())?;
                }
                let graded = Graded { rating, passed, first_in_session: record.attempt_no == 1, at: created };
                change = schedule::apply(&tx, card.as_ref(), &record.profile_id, &record.material_id, graded)?;
                rating_kept = change.as_ref().map(|c| c.rating as u8);
                interval_kept = change.as_ref().map(|c| c.interval_days);
                if change.is_some() {
                    schedule_before = Some(card_before_json(card.as_ref()).map_err(|e| deskmate_store::StoreError::Invalid(e.to_string()))?);
                }
            }
        }

        let errors_json = serde_json::to_string(&merged.errors)
            .map_err(|e| deskmate_store::StoreError::Invalid(format!("cannot store the errors: {e}")))?;
        let errors_before = serde_json::to_string(&record.errors)
            .map_err(|e| deskmate_store::StoreError::Invalid(format!("cannot store the errors: {e}")))?;
        tx.execute(
            "UPDATE recite_attempts SET correct = ?2, accuracy = ?3, passed = ?4, first_pass = ?5, errors = ?6,
                error_count = ?7, rating = ?8, interval_days = ?9, schedule_before = coalesce(?10, schedule_before)
             WHERE id = ?1",
            params![
                record.id,
                merged.correct as i64,
                merged.accuracy,
                passed,
                first_pass,
                errors_json,
                merged.errors.iter().filter(|e| !e.uncertain).count() as i64,
                rating_kept,
                interval_kept,
                schedule_before,
            ],
        )?;
        tx.execute(
            "INSERT INTO recite_retakes (id, attempt_id, line, transcript, errors_before, correct_before,
                accuracy_before, passed_before, accuracy_after, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            params![
                retake_id,
                record.id,
                retake.line as i64,
                retake.transcript.text,
                errors_before,
                record.correct as i64,
                record.accuracy,
                record.passed,
                merged.accuracy,
                at,
            ],
        )?;
        // The errors this take made certain are the child's now: count them.
        let fresh: Vec<bool> = merged
            .errors
            .iter()
            .map(|e| !e.uncertain && !record.errors.iter().any(|b| !b.uncertain && same_error(b, e)))
            .collect();
        let certain: Vec<&RecitationError> =
            merged.errors.iter().zip(&fresh).filter(|(_, f)| **f).map(|(e, _)| e).collect();
        let counted =
            patterns::record(&tx, &record.profile_id, &record.material_id, mode, &certain, &record.id, &at)?;
        tx.commit()?;
        let mut counted = counted.into_iter();
        let hits: Vec<Option<PatternHit>> =
            fresh.iter().map(|f| if *f { counted.next() } else { None }).collect();
        Ok(Ok((record, merged, passed, first_pass, change, hits)))
    })?;
    let (record, merged, passed, first_pass, change, hits) = done?;

    // Tips for an error the take made certain and the child made before.
    let mut occurrences = Vec::with_capacity(hits.len());
    let mut tip_list: Vec<Option<Tip>> = Vec::with_capacity(hits.len());
    for (e, hit) in merged.errors.iter().zip(&hits) {
        let Some(hit) = hit else {
            occurrences.push(1);
            tip_list.push(None);
            continue;
        };
        occurrences.push(hit.occurrences);
        let tip = match (&hit.tip, hit.occurrences) {
            (Some(t), _) => Some(t.clone()),
            (None, n) if n >= 2 => {
                let req = TipRequest::from_error(&reference, e, mode, &material.title, n);
                let (tip, source) = write_tip_or_template(tips, &req);
                Some(patterns::cache_tip(
                    store,
                    &hit.pattern_id,
                    &tip,
                    source,
                    &ts(Utc::now()),
                )?)
            }
            _ => None,
        };
        tip_list.push(tip);
    }
    let feedback = feedback::compose(&reference, &merged, threshold, &occurrences, &tip_list);
    Ok(AttemptOutcome {
        attempt_id: record.id,
        material_id: material.id,
        title: material.title,
        verdict: merged,
        passed,
        pass_threshold: threshold,
        first_pass,
        purpose: record.purpose,
        session_id: record.session_id,
        attempt_no: record.attempt_no,
        schedule: change,
        feedback,
    })
}

/// The lines of an attempt already said again (1-based, ascending).
pub fn taken_lines(store: &Store, attempt_id: &str) -> deskmate_store::StoreResult<Vec<usize>> {
    store.with_conn(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT line FROM recite_retakes WHERE attempt_id = ?1 ORDER BY line",
        )?;
        let lines = stmt
            .query_map([attempt_id], |r| r.get::<_, i64>(0))?
            .collect::<Result<Vec<_>, _>>()?;
        Ok(lines
            .into_iter()
            .filter_map(|l| usize::try_from(l).ok())
            .collect())
    })
}

/// The same error, as far as counting patterns goes.
fn same_error(a: &RecitationError, b: &RecitationError) -> bool {
    a.line == b.line
        && a.offset == b.offset
        && a.error_type == b.error_type
        && a.expected == b.expected
        && a.actual == b.actual
}
