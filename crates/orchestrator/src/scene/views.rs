//! What the practice scene shows and tells: the practice as the screen
//! shows it, and the verdict of an attempt in the protocol's shape. A
//! verdict, its feedback and a submission's progress are `deskmate-protocol`
//! types (re-exported here): the scene builds them once, from the recitation
//! checker's outcome, and every front end receives them as they are.

use deskmate_protocol::practice as wire;
use deskmate_protocol::{LevelEvent, PartialEvent};
use deskmate_recite::practice::AttemptOutcome;
use deskmate_recite::Mode;
use deskmate_store::Material;
use serde::{Deserialize, Serialize};

use crate::PracticeState;

pub use wire::{FeedbackView, PracticeResult, TaskEvent, TaskStatus};

/// A practice as the practice screen shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PracticeView {
    pub id: String,
    pub profile_id: String,
    pub material: Material,
    pub mode: Mode,
    pub is_review: bool,
    pub attempts: u32,
    pub state: PracticeState,
    pub last_result: Option<PracticeResult>,
}

/// What the scene publishes while it runs; the app puts each on its one
/// event stream.
#[derive(Debug, Clone, PartialEq)]
pub enum SceneEvent {
    /// A submission's progress (listening → … → done or failed).
    Task(Box<TaskEvent>),
    /// The microphone's level while a child recites.
    Level(LevelEvent),
    /// The text heard so far while a child recites.
    Partial(PartialEvent),
}

/// The verdict on a recorded attempt, as the protocol carries it;
/// `transcript` is what the child is shown as heard or typed.
pub fn practice_result(o: &AttemptOutcome, transcript: &str) -> PracticeResult {
    let tip = o.feedback.items.iter().find_map(|i| i.tip.clone());
    PracticeResult {
        attempt_id: o.attempt_id.clone(),
        attempt_number: o.attempt_no,
        accuracy: o.verdict.accuracy,
        passed: o.passed,
        units: o.verdict.units,
        correct: o.verdict.correct,
        transcript: transcript.to_string(),
        errors: o.verdict.errors.iter().map(recitation_error).collect(),
        lines: o.verdict.lines.iter().map(|l| l.text.clone()).collect(),
        feedback: FeedbackView {
            zh: o.feedback.zh.clone(),
            en: o.feedback.en.clone(),
            tip_zh: tip.as_ref().map(|t| t.zh.clone()),
            tip_en: tip.map(|t| t.en),
        },
        next_review_at: o.schedule.as_ref().map(|s| s.next_review_at.clone()),
        review_interval_days: o.schedule.as_ref().map(|s| s.interval_days),
        lines_to_say_again: deskmate_recite::retake::unclear_lines(&o.verdict.errors),
    }
}

/// What went wrong in a recitation, as the protocol says it.
pub fn error_type(t: deskmate_recite::ErrorType) -> wire::ErrorType {
    use deskmate_recite::ErrorType as T;
    match t {
        T::Omission => wire::ErrorType::Omission,
        T::Insertion => wire::ErrorType::Insertion,
        T::Substitution => wire::ErrorType::Substitution,
        T::Order => wire::ErrorType::Order,
    }
}

/// One error of a recitation, as the protocol carries it.
pub fn recitation_error(e: &deskmate_recite::RecitationError) -> wire::RecitationError {
    use deskmate_recite::ErrorKind as K;
    wire::RecitationError {
        error_type: error_type(e.error_type),
        kind: match e.kind {
            K::Line => wire::ErrorKind::Line,
            K::Part => wire::ErrorKind::Part,
            K::Extra => wire::ErrorKind::Extra,
            K::Tone => wire::ErrorKind::Tone,
            K::Sound => wire::ErrorKind::Sound,
            K::Homophone => wire::ErrorKind::Homophone,
            K::Spelling => wire::ErrorKind::Spelling,
            K::Other => wire::ErrorKind::Other,
            K::Swap => wire::ErrorKind::Swap,
            K::Move => wire::ErrorKind::Move,
        },
        line: e.line,
        offset: e.offset,
        expected: e.expected.clone(),
        actual: e.actual.clone(),
        label_zh: e.label_zh.clone(),
        label_en: e.label_en.clone(),
        uncertain: e.uncertain,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use deskmate_recite::{check, Mode, Reference, Transcript};

    use super::*;

    /// The checker's errors reach the wire as the recitation crate writes
    /// them (its JSON is what attempt history stores), field for field.
    #[test]
    fn a_recitation_error_reaches_the_wire_as_the_checker_wrote_it() {
        let reference =
            Reference::new("床前明月光，疑是地上霜。举头望明月，低头思故乡。", None).unwrap();
        let verdict = check(
            &reference,
            &Transcript::new("床前明月光疑是地下霜低头望明月思故乡故乡"),
            Mode::Voice,
        )
        .unwrap();
        assert!(verdict.errors.len() >= 2, "{verdict:?}");
        for e in &verdict.errors {
            assert_eq!(
                serde_json::to_value(recitation_error(e)).unwrap(),
                serde_json::to_value(e).unwrap()
            );
        }
    }
}
