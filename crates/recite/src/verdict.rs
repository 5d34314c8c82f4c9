//! The result of checking one recitation: accuracy, typed errors with their
//! place in the text, and per-line scores.

use serde::{Deserialize, Serialize};

use crate::{Lang, Mode};

/// What went wrong. The `--batch` JSON uses exactly these four names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ErrorType {
    /// Reference content that was not recited (漏内容).
    Omission,
    /// Recited content that is not in the reference (多字).
    Insertion,
    /// A unit recited as another (voice: 字音错; text: 错别字).
    Substitution,
    /// Content present but transposed: swapped neighbours, swapped or moved lines (记混顺序).
    Order,
}

impl ErrorType {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Omission => "omission",
            Self::Insertion => "insertion",
            Self::Substitution => "substitution",
            Self::Order => "order",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "omission" => Some(Self::Omission),
            "insertion" => Some(Self::Insertion),
            "substitution" => Some(Self::Substitution),
            "order" => Some(Self::Order),
            _ => None,
        }
    }
}

/// A finer description of an error.
///
/// | type | kinds |
/// | --- | --- |
/// | omission | `line` (a whole line), `part` (some units of a line) |
/// | insertion | `extra` |
/// | substitution, voice | `tone` (same syllable, other tone), `sound` (another syllable or word) |
/// | substitution, text | `homophone` (同音/近音字), `other`; English: `spelling` (a near miss), `other` |
/// | order | `swap` (neighbours swapped), `line` (a whole line moved), `move` (a block moved) |
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum ErrorKind {
    Line,
    Part,
    Extra,
    Tone,
    Sound,
    Homophone,
    Spelling,
    Other,
    Swap,
    Move,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Line => "line",
            Self::Part => "part",
            Self::Extra => "extra",
            Self::Tone => "tone",
            Self::Sound => "sound",
            Self::Homophone => "homophone",
            Self::Spelling => "spelling",
            Self::Other => "other",
            Self::Swap => "swap",
            Self::Move => "move",
        }
    }
}

/// One error, placed in the reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct RecitationError {
    #[serde(rename = "type")]
    pub error_type: ErrorType,
    pub kind: ErrorKind,
    /// 1-based line (sentence) of the reference.
    pub line: usize,
    /// 0-based unit offset within the line.
    pub offset: usize,
    /// What the reference says here (empty for an insertion).
    pub expected: String,
    /// What was recited here (empty for an omission).
    pub actual: String,
    /// Short label for a child or parent, Chinese.
    pub label_zh: String,
    /// Short label, English.
    pub label_en: String,
    /// Speech recognition was unsure of the recited units involved (only
    /// with per-unit confidences): the child may well have been right.
    /// Uncertain errors still count in accuracy but are said gently and not
    /// recorded as error patterns.
    #[serde(default)]
    pub uncertain: bool,
    /// The reference units the error covers (for showing it line by line).
    #[serde(skip)]
    pub(crate) span: std::ops::Range<usize>,
    /// Where in the transcript's text (char indices) the error was heard: the
    /// recited units of a substitution, insertion or order error; for an
    /// omission, the empty range where the missing text belongs. Lets a
    /// speech pipeline re-examine the audio at that place.
    #[serde(skip)]
    pub heard: std::ops::Range<usize>,
}

impl RecitationError {
    pub(crate) fn new(
        error_type: ErrorType,
        kind: ErrorKind,
        mode: Mode,
        lang: Lang,
        (line, offset): (usize, usize),
        expected: String,
        actual: String,
    ) -> Self {
        let (label_zh, label_en) = labels(error_type, kind, mode, lang);
        Self {
            error_type,
            kind,
            line,
            offset,
            expected,
            actual,
            label_zh: label_zh.into(),
            label_en: label_en.into(),
            uncertain: false,
            span: 0..0,
            heard: 0..0,
        }
    }
}

fn labels(t: ErrorType, kind: ErrorKind, mode: Mode, lang: Lang) -> (&'static str, &'static str) {
    match (t, mode, lang) {
        (ErrorType::Omission, _, _) if kind == ErrorKind::Line => ("漏了一句", "missed a line"),
        (ErrorType::Omission, _, _) => ("漏内容", "missed words"),
        (ErrorType::Insertion, _, Lang::Zh) => ("多字", "extra words"),
        (ErrorType::Insertion, _, Lang::En) => ("多词", "extra words"),
        (ErrorType::Substitution, Mode::Voice, Lang::Zh) if kind == ErrorKind::Tone => {
            ("字音错（声调）", "wrong tone")
        }
        (ErrorType::Substitution, Mode::Voice, Lang::Zh) => ("字音错", "wrong sound"),
        (ErrorType::Substitution, Mode::Voice, Lang::En) => ("读错词", "wrong word"),
        (ErrorType::Substitution, Mode::Text, Lang::Zh) => ("错别字", "wrong character"),
        (ErrorType::Substitution, Mode::Text, Lang::En) if kind == ErrorKind::Spelling => {
            ("拼写错", "spelling mistake")
        }
        (ErrorType::Substitution, Mode::Text, Lang::En) => ("写错词", "wrong word"),
        (ErrorType::Order, _, _) => ("记混顺序", "mixed-up order"),
    }
}

/// How one line of the reference went.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LineScore {
    /// 1-based.
    pub line: usize,
    pub text: String,
    pub units: usize,
    pub correct: usize,
}

/// The checker's judgement of one recitation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub lang: Lang,
    pub mode: Mode,
    /// Units in the reference (characters for Chinese, words for English).
    pub units: usize,
    /// Reference units matched by an optimal alignment (by sound in voice mode).
    pub correct: usize,
    /// `correct ÷ units × 100`, rounded to two decimals.
    pub accuracy: f64,
    /// Errors in reading order.
    pub errors: Vec<RecitationError>,
    pub lines: Vec<LineScore>,
    /// Hesitation fillers heard and not penalised (voice mode).
    pub fillers: usize,
    /// Units re-read when the child restarted a line, not penalised (voice mode).
    pub restarted: usize,
}

impl Verdict {
    /// True when the accuracy reaches `threshold` percent (compared exactly,
    /// not after rounding).
    pub fn passed(&self, threshold: f64) -> bool {
        if self.units == 0 {
            return false;
        }
        self.correct as f64 * 100.0 + 1e-9 >= threshold * self.units as f64
    }

    /// True when nothing at all was wrong.
    pub fn is_perfect(&self) -> bool {
        self.correct == self.units && self.errors.is_empty()
    }
}

pub(crate) fn accuracy(correct: usize, units: usize) -> f64 {
    if units == 0 {
        return 0.0;
    }
    (correct as f64 * 10_000.0 / units as f64).round() / 100.0
}
