//! Recitation for every front end (Tauri shell, CLI, HTTP API): check a
//! transcript, record a child's attempt (history, error patterns, review
//! schedule, feedback), list due reviews, build reports. The work itself is
//! in `deskmate-recite`; this wires it to the app's store.
//!
//! Memory tips for repeated errors come from the configured LLM
//! ([`crate::tips::LlmTips`], with a timeout) when a model is set up, and
//! from the offline templates otherwise; a failed, late, empty or generic
//! LLM tip falls back to the template tip. [`Deskmate::record_attempt_with`]
//! takes any other [`TipWriter`].

use chrono::{DateTime, NaiveDate, Utc};

pub use deskmate_recite::feedback::{Feedback, Judgement};
pub use deskmate_recite::history::{AttemptRecord, HistoryFilter, Purpose};
pub use deskmate_recite::patterns::ErrorPattern;
pub use deskmate_recite::practice::{AttemptOutcome, NewAttempt};
pub use deskmate_recite::report::{Report, ReportType};
pub use deskmate_recite::schedule::{DueReview, Rating, ScheduleChange};
pub use deskmate_recite::{
    check, check_text, CheckError, ErrorKind, ErrorType, Lang, Mode, RecitationError, ReciteError,
    Reference, TemplateTips, Tip, TipWriter, Transcript, Verdict, DEFAULT_PASS_THRESHOLD,
};
use deskmate_store::{Material, MaterialFilter, Profile, Store, StoreError};

use crate::Deskmate;

/// Records one attempt in `store`. Memory tips for repeated errors come
/// from the model configured there when there is one, else from the
/// offline templates. May block on the model: call from a blocking context.
pub(crate) fn record_attempt(
    store: &Store,
    attempt: NewAttempt,
) -> Result<AttemptOutcome, ReciteError> {
    match llm_tips(store, &attempt.profile_id) {
        Some(llm) => deskmate_recite::practice::record_attempt(store, attempt, &llm),
        None => deskmate_recite::practice::record_attempt(store, attempt, &TemplateTips),
    }
}

/// Merges a re-take of one unclear line into its attempt, with memory tips
/// as [`record_attempt`] writes them.
pub(crate) fn record_retake(
    store: &Store,
    retake: deskmate_recite::retake::RetakeAttempt,
) -> Result<AttemptOutcome, ReciteError> {
    let child: Option<String> = store
        .with_conn(|c| {
            Ok(c.query_row(
                "SELECT profile_id FROM recite_attempts WHERE id = ?1",
                [&retake.attempt_id],
                |r| r.get(0),
            )?)
        })
        .ok();
    let tips = child.and_then(|child| llm_tips(store, &child));
    match tips {
        Some(llm) => deskmate_recite::retake::record_retake(store, retake, &llm),
        None => deskmate_recite::retake::record_retake(store, retake, &TemplateTips),
    }
}

/// The LLM tip writer, when a model is configured and its client can be built.
/// Its calls are stored as `profile_id`'s ([`crate::model_use`]).
fn llm_tips(store: &Store, profile_id: &str) -> Option<crate::tips::LlmTips> {
    // A model set up and agreed to by a parent (the model notice).
    let usable = crate::chat::model_notice::agreed(store).ok()?;
    if !usable {
        return None;
    }
    match crate::chat::llm_client(store, &crate::chat::ChatOptions::default()) {
        Ok(client) => Some(crate::tips::LlmTips::new(
            crate::model_use::ChildCalls::meter(
                client,
                store,
                profile_id,
                crate::model_use::Purpose::Tips,
                crate::model_use::prices(store),
            ),
        )),
        Err(e) => {
            tracing::warn!("memory tips from templates: the LLM is not usable ({e})");
            None
        }
    }
}

/// A profile by id, or by its name (case-insensitive).
pub(crate) fn find_profile(store: &Store, key: &str) -> Result<Profile, ReciteError> {
    match store.profiles().get(key) {
        Ok(p) => Ok(p),
        Err(StoreError::NotFound(_)) => {
            let wanted = key.trim().to_lowercase();
            store
                .profiles()
                .list()?
                .into_iter()
                .find(|p| p.name.to_lowercase() == wanted)
                .ok_or_else(|| ReciteError::Store(StoreError::NotFound(format!("profile {key:?}"))))
        }
        Err(e) => Err(e.into()),
    }
}

/// A material by id, by built-in slug (`zh/jing-ye-si`), or by its exact
/// title when that is unique.
pub(crate) fn find_material(store: &Store, key: &str) -> Result<Material, ReciteError> {
    match store.materials().get(key) {
        Ok(m) => return Ok(m),
        Err(StoreError::NotFound(_)) => {}
        Err(e) => return Err(e.into()),
    }
    let all = store.materials().list(&MaterialFilter::default())?;
    if let Some(m) = all.iter().find(|m| m.slug.as_deref() == Some(key)) {
        return Ok(m.clone());
    }
    let titled: Vec<&Material> = all.iter().filter(|m| m.title == key.trim()).collect();
    match titled.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(ReciteError::Store(StoreError::NotFound(format!(
            "material {key:?}"
        )))),
        many => Err(ReciteError::Invalid(format!(
            "{} materials are titled {key:?}; use the id ({})",
            many.len(),
            many.iter()
                .map(|m| m.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ))),
    }
}

impl Deskmate {
    /// A child's pass mark: the profile's `recite.pass_threshold` setting,
    /// or [`DEFAULT_PASS_THRESHOLD`]. The mark an attempt recorded for the
    /// child is judged by, so a verdict shown before recording agrees.
    pub fn pass_threshold(&self, profile_id: &str) -> Result<f64, ReciteError> {
        deskmate_recite::practice::pass_threshold(self.store(), profile_id)
    }

    /// Records one attempt. Memory tips for repeated errors come from the
    /// configured LLM when there is one, else from the offline templates.
    pub fn record_attempt(&self, attempt: NewAttempt) -> Result<AttemptOutcome, ReciteError> {
        record_attempt(self.store(), attempt)
    }

    /// Records one attempt; memory tips for repeated errors come from `tips`
    /// (falling back to templates when it fails). May block on `tips`: call
    /// from a blocking context in async code.
    pub fn record_attempt_with(
        &self,
        attempt: NewAttempt,
        tips: &dyn TipWriter,
    ) -> Result<AttemptOutcome, ReciteError> {
        deskmate_recite::practice::record_attempt(self.store(), attempt, tips)
    }

    /// Reviews due by the end of `at`'s day in the child's time zone.
    pub fn reviews_due(
        &self,
        profile_id: &str,
        at: DateTime<Utc>,
    ) -> Result<Vec<DueReview>, ReciteError> {
        Ok(deskmate_recite::schedule::due(
            self.store(),
            profile_id,
            at,
        )?)
    }

    /// Generates (and stores, overwriting) a daily or weekly report.
    pub fn report(
        &self,
        profile_id: &str,
        report_type: ReportType,
        date: NaiveDate,
        now: DateTime<Utc>,
    ) -> Result<Report, ReciteError> {
        Ok(deskmate_recite::report::generate(
            self.store(),
            profile_id,
            report_type,
            date,
            now,
        )?)
    }

    /// A child's attempts, newest first.
    pub fn recitation_history(
        &self,
        profile_id: &str,
        filter: &HistoryFilter,
    ) -> Result<Vec<AttemptRecord>, ReciteError> {
        Ok(deskmate_recite::history::list(
            self.store(),
            profile_id,
            filter,
        )?)
    }

    /// A child's recurring errors, most frequent first.
    pub fn error_patterns(
        &self,
        profile_id: &str,
        material_id: Option<&str>,
        limit: usize,
    ) -> Result<Vec<ErrorPattern>, ReciteError> {
        Ok(deskmate_recite::patterns::list(
            self.store(),
            profile_id,
            material_id,
            limit,
        )?)
    }

    /// A profile by id, or by name (any case).
    pub fn find_profile(&self, key: &str) -> Result<Profile, ReciteError> {
        find_profile(self.store(), key)
    }

    /// Adds a parent's own material to the library, once it is known to be
    /// recitable: it must have something to recite and at most
    /// [`deskmate_recite::MAX_REFERENCE_UNITS`] characters or words — the
    /// one limit, so every material the library holds can be checked.
    pub fn add_material(
        &self,
        material: deskmate_store::NewMaterial,
        created_by: Option<&str>,
    ) -> Result<Material, ReciteError> {
        // A blank text is the library's to refuse (it says "empty").
        if !material.body.trim().is_empty() {
            Reference::new(&material.body, Some(material.lang.parse()?))?;
        }
        Ok(self.store().materials().add_custom(material, created_by)?)
    }

    /// A material by id, slug or exact title.
    pub fn find_material(&self, key: &str) -> Result<Material, ReciteError> {
        find_material(self.store(), key)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::Config;
    use chrono::TimeZone;

    #[test]
    fn attempt_review_and_report_through_the_app() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let (child, poem) = deskmate_testkit::family::child_with_jing_ye_si(app.store());
        assert_eq!(app.find_material(&poem.id).unwrap().id, poem.id);
        assert_eq!(app.find_profile("小明").unwrap().id, child.id);
        let at = Utc.with_ymd_and_hms(2026, 3, 2, 2, 0, 0).unwrap();
        let out = app
            .record_attempt(NewAttempt {
                profile_id: child.id.clone(),
                material_id: poem.id.clone(),
                transcript: Transcript::new("床前明月光，疑是地上霜。举头望明月，低头思故乡。"),
                mode: Mode::Voice,
                at,
                duration_ms: Some(9_000),
                session_id: None,
            })
            .unwrap();
        assert!(out.passed && out.first_pass);
        let days = out.schedule.as_ref().unwrap().interval_days;
        assert!(app.reviews_due(&child.id, at).unwrap().is_empty());
        let later = at + chrono::Duration::days(days);
        assert_eq!(app.reviews_due(&child.id, later).unwrap().len(), 1);
        let date = NaiveDate::from_ymd_opt(2026, 3, 2).unwrap();
        let report = app.report(&child.id, ReportType::Daily, date, at).unwrap();
        assert_eq!(report.summary.attempts, 1);
        assert_eq!(
            app.recitation_history(&child.id, &HistoryFilter::default())
                .unwrap()
                .len(),
            1
        );
    }
}
