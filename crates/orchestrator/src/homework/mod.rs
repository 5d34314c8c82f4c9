//! The homework scene (issue 16, point 4): photos of a worksheet go to a
//! vision model ([`model`]), which checks every answer and returns, per
//! question, the question, the child's answer, right or wrong, a first
//! hint, a step-by-step explanation and the correct answer ([`Worksheet`]).
//! The scene then walks the child through the mistakes one at a time —
//! the hint first (再想想…), the explanation when asked again, the correct
//! answer only when a parent allows it — and ends with a summary. Every
//! mistake is stored for the child ([`mistakes`]) until it is redone;
//! today's plan lists them, and the walk asks them again ([`Step::Redo`]).
//!
//! [`Walk`] is the scene's state machine: pure and serializable like the
//! practice's, stored after every step (table `homework_walks`).
//! [`Walk::apply`] takes an [`Event`] and returns the next walk, or says
//! why the event does not fit (the walk is then unchanged).

pub mod mistakes;
pub mod model;
pub mod photo;

use serde::{Deserialize, Serialize};

/// One question of a checked worksheet, as the model judged it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CheckedQuestion {
    pub question: String,
    pub child_answer: String,
    pub correct: bool,
    /// A first hint, never the answer.
    pub hint: String,
    /// The working, step by step.
    pub explanation: String,
    pub correct_answer: String,
}

/// A worksheet as the model checked it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Worksheet {
    /// 数学, 语文, English… (as the model read it).
    pub subject: String,
    pub questions: Vec<CheckedQuestion>,
}

/// Why a model's reply is not a checked worksheet.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("the model's reply is not a checked worksheet: {0}")]
pub struct NotAWorksheet(pub String);

/// At most this many questions are taken from one reply.
pub const MAX_QUESTIONS: usize = 50;

impl Worksheet {
    /// Reads a model's reply: a JSON object shaped like [`Worksheet`],
    /// alone or inside a ```json fence. Every question needs its text; a
    /// wrong one needs its hint, explanation and correct answer.
    pub fn from_reply(reply: &str) -> Result<Self, NotAWorksheet> {
        let start = reply.find('{');
        let end = reply.rfind('}');
        let json = match (start, end) {
            (Some(s), Some(e)) if s < e => &reply[s..=e],
            _ => return Err(NotAWorksheet("no JSON object in it".into())),
        };
        let mut sheet: Worksheet =
            serde_json::from_str(json).map_err(|e| NotAWorksheet(e.to_string()))?;
        sheet.validate()?;
        if sheet.subject.trim().is_empty() {
            sheet.subject = "作业".into();
        }
        Ok(sheet)
    }

    fn validate(&self) -> Result<(), NotAWorksheet> {
        if self.questions.is_empty() {
            return Err(NotAWorksheet("no questions were found on the photo".into()));
        }
        if self.questions.len() > MAX_QUESTIONS {
            return Err(NotAWorksheet(format!(
                "{} questions (at most {MAX_QUESTIONS})",
                self.questions.len()
            )));
        }
        for (i, q) in self.questions.iter().enumerate() {
            let n = i + 1;
            if q.question.trim().is_empty() {
                return Err(NotAWorksheet(format!("question {n} has no text")));
            }
            if !q.correct {
                for (field, value) in [
                    ("hint", &q.hint),
                    ("explanation", &q.explanation),
                    ("correct_answer", &q.correct_answer),
                ] {
                    if value.trim().is_empty() {
                        return Err(NotAWorksheet(format!(
                            "question {n} is marked wrong but has no {field}"
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// The questions marked wrong, in order.
    pub fn mistakes(&self) -> Vec<&CheckedQuestion> {
        self.questions.iter().filter(|q| !q.correct).collect()
    }

    pub fn correct_count(&self) -> usize {
        self.questions.iter().filter(|q| q.correct).count()
    }
}

/// How much help the child has had with the mistake in front of them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum Help {
    Hint,
    Explanation,
    /// The correct answer (only when a parent allows it).
    Answer,
}

/// Where the walk is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "step", rename_all = "snake_case")]
pub enum Step {
    /// Waiting for a photo.
    Idle,
    /// On the sheet's `index`-th mistake (0-based), with this much help.
    Mistake { index: usize, help: Help },
    /// Every mistake gone through.
    Summary,
    /// A stored mistake asked again (from the plan); `tries` wrong answers so far.
    Redo { mistake_id: String, tries: u32 },
}

/// The homework scene's state: the sheet checked last (with the stored
/// mistakes' ids, in the order of [`Worksheet::mistakes`]), which of its
/// mistakes the child put right during the walk, and the step.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Walk {
    pub sheet: Option<Worksheet>,
    pub mistake_ids: Vec<String>,
    /// Indexes (into the mistakes) answered right during the walk.
    pub put_right: Vec<usize>,
    pub step: Step,
}

impl Default for Walk {
    fn default() -> Self {
        Self {
            sheet: None,
            mistake_ids: Vec::new(),
            put_right: Vec::new(),
            step: Step::Idle,
        }
    }
}

/// What happens to the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Event {
    /// A sheet came back checked; its mistakes were stored with these ids.
    Checked {
        sheet: Worksheet,
        mistake_ids: Vec<String>,
    },
    /// 再给个提示 / 不懂: the next level of help (the answer only when
    /// `answers_allowed`).
    MoreHelp { answers_allowed: bool },
    /// 我懂了 / 下一题: on to the next mistake, or the summary.
    Next,
    /// The child answered the mistake in front of them (or the one redone)
    /// again, right or not.
    Answered { right: bool },
    /// A stored mistake to do again.
    Redo { mistake_id: String },
    /// 不做了.
    Leave,
}

/// An event that does not fit the walk's step.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{event} does not fit the homework walk at step {step}")]
pub struct NotNow {
    pub event: &'static str,
    pub step: &'static str,
}

impl Step {
    pub fn name(&self) -> &'static str {
        match self {
            Step::Idle => "idle",
            Step::Mistake { .. } => "mistake",
            Step::Summary => "summary",
            Step::Redo { .. } => "redo",
        }
    }
}

impl Event {
    fn name(&self) -> &'static str {
        match self {
            Event::Checked { .. } => "checked",
            Event::MoreHelp { .. } => "more_help",
            Event::Next => "next",
            Event::Answered { .. } => "answered",
            Event::Redo { .. } => "redo",
            Event::Leave => "leave",
        }
    }
}

impl Walk {
    fn mistake_count(&self) -> usize {
        self.sheet.as_ref().map_or(0, |s| s.mistakes().len())
    }

    /// The mistake at `index`, or the summary after the last.
    fn at(&self, index: usize) -> Step {
        if index < self.mistake_count() {
            Step::Mistake {
                index,
                help: Help::Hint,
            }
        } else {
            Step::Summary
        }
    }

    /// The walk after `event`, or why it does not fit (`self` unchanged).
    pub fn apply(&self, event: Event) -> Result<Walk, NotNow> {
        let refuse = |e: &Event| NotNow {
            event: e.name(),
            step: self.step.name(),
        };
        let mut next = self.clone();
        match (&self.step, event) {
            (_, Event::Checked { sheet, mistake_ids }) => {
                if mistake_ids.len() != sheet.mistakes().len() {
                    return Err(NotNow {
                        event: "checked (ids not one per mistake)",
                        step: self.step.name(),
                    });
                }
                next.sheet = Some(sheet);
                next.mistake_ids = mistake_ids;
                next.put_right.clear();
                next.step = next.at(0);
            }
            (_, Event::Leave) => next.step = Step::Idle,
            (_, Event::Redo { mistake_id }) => {
                next.step = Step::Redo {
                    mistake_id,
                    tries: 0,
                }
            }
            (Step::Mistake { index, help }, Event::MoreHelp { answers_allowed }) => {
                let help = match help {
                    Help::Hint => Help::Explanation,
                    Help::Explanation if answers_allowed => Help::Answer,
                    other => *other,
                };
                next.step = Step::Mistake {
                    index: *index,
                    help,
                };
            }
            (Step::Mistake { index, .. }, Event::Next) => next.step = next.at(index + 1),
            (Step::Mistake { index, help }, Event::Answered { right }) => {
                if right {
                    if !next.put_right.contains(index) {
                        next.put_right.push(*index);
                    }
                    next.step = next.at(index + 1);
                } else {
                    next.step = Step::Mistake {
                        index: *index,
                        help: (*help).max(Help::Explanation),
                    };
                }
            }
            (Step::Redo { mistake_id, tries }, Event::Answered { right }) => {
                next.step = if right {
                    Step::Idle
                } else {
                    Step::Redo {
                        mistake_id: mistake_id.clone(),
                        tries: tries + 1,
                    }
                };
            }
            (Step::Redo { .. }, Event::Next) => next.step = Step::Idle,
            (_, e) => return Err(refuse(&e)),
        }
        Ok(next)
    }
}

/// What the child's reply means inside the homework scene.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply {
    /// 再给个提示, 不懂, 还是不会, hint.
    MoreHelp,
    /// 我懂了, 下一题, 继续, next.
    Next,
    /// 答案是什么, 告诉我答案.
    AskAnswer,
    /// Anything else: an answer to the question.
    Answer,
}

/// Reads a scene-local reply (the router has sent it here as going on).
pub fn reply_of(text: &str) -> Reply {
    let t = text.trim().to_lowercase();
    let has = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if has(&["答案", "answer"]) && !has(&["我的答案", "my answer"]) {
        Reply::AskAnswer
    } else if has(&[
        "提示",
        "不懂",
        "不会",
        "不明白",
        "再想",
        "hint",
        "help",
        "don't get",
    ]) {
        Reply::MoreHelp
    } else if has(&[
        "懂了",
        "明白了",
        "知道了",
        "会了",
        "下一",
        "继续",
        "好的",
        "next",
        "got it",
        "i see",
        "continue",
    ]) || matches!(t.as_str(), "好" | "嗯" | "ok" | "okay")
    {
        Reply::Next
    } else {
        Reply::Answer
    }
}

/// A typed answer against the stored correct one, when no model can
/// judge it: the same after spaces, punctuation and case are set aside.
pub fn same_answer(answer: &str, correct: &str) -> bool {
    let fold = |s: &str| -> String {
        s.chars()
            .filter(|c| c.is_alphanumeric() || "+-×÷*/=<>.".contains(*c))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let (a, c) = (fold(answer), fold(correct));
    !a.is_empty() && (a == c || a.ends_with(&format!("={c}")))
}

/// One question of the sheet as marked on the card: what was asked, the
/// child's answer and whether it was right — never the correct answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(rename = "HomeworkMark"))]
pub struct Mark {
    pub question: String,
    pub child_answer: String,
    pub correct: bool,
}

/// What a front end shows of the walk: the homework card. The correct
/// answer is in it only when it may be shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct HomeworkCard {
    /// `mistake`, `summary`, `redo` or `idle`.
    pub step: String,
    pub subject: String,
    /// Questions on the sheet, and how many were right.
    pub total: u32,
    pub correct: u32,
    /// Mistakes on the sheet, and which one (1-based) is shown.
    pub mistakes: u32,
    pub mistake_number: Option<u32>,
    pub question: Option<String>,
    pub child_answer: Option<String>,
    pub help: Option<Help>,
    pub hint: Option<String>,
    pub explanation: Option<String>,
    /// Only when a parent allows answers and the child asked for it.
    pub correct_answer: Option<String>,
    /// Whether a parent allows the correct answers to be shown.
    pub answers_allowed: bool,
    /// Every question of the sheet, marked right or wrong, in its order
    /// (empty when no sheet is being walked).
    pub marks: Vec<Mark>,
}

/// One stored mistake being redone, as the card and the words need it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redoing {
    pub question: String,
    pub hint: String,
    pub explanation: String,
}

impl Walk {
    /// The card of the walk as it is (`redoing`: the stored mistake of a
    /// redo step).
    pub fn card(&self, answers_allowed: bool, redoing: Option<&Redoing>) -> HomeworkCard {
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let (subject, total, correct, mistakes) = match &self.sheet {
            Some(s) => (
                s.subject.clone(),
                count(s.questions.len()),
                count(s.correct_count()),
                count(s.mistakes().len()),
            ),
            None => (String::new(), 0, 0, 0),
        };
        let mut card = HomeworkCard {
            step: self.step.name().into(),
            subject,
            total,
            correct,
            mistakes,
            mistake_number: None,
            question: None,
            child_answer: None,
            help: None,
            hint: None,
            explanation: None,
            correct_answer: None,
            answers_allowed,
            marks: self
                .sheet
                .as_ref()
                .map(|s| {
                    s.questions
                        .iter()
                        .map(|q| Mark {
                            question: q.question.clone(),
                            child_answer: q.child_answer.clone(),
                            correct: q.correct,
                        })
                        .collect()
                })
                .unwrap_or_default(),
        };
        match &self.step {
            Step::Mistake { index, help } => {
                let q = self
                    .sheet
                    .as_ref()
                    .and_then(|s| s.mistakes().get(*index).copied().cloned());
                if let Some(q) = q {
                    card.mistake_number = Some(count(index + 1));
                    card.question = Some(q.question);
                    card.child_answer = Some(q.child_answer);
                    card.help = Some(*help);
                    card.hint = Some(q.hint);
                    if *help >= Help::Explanation {
                        card.explanation = Some(q.explanation);
                    }
                    if *help == Help::Answer && answers_allowed {
                        card.correct_answer = Some(q.correct_answer);
                    }
                }
            }
            Step::Redo { tries, .. } => {
                if let Some(r) = redoing {
                    card.question = Some(r.question.clone());
                    if *tries >= 1 {
                        card.hint = Some(r.hint.clone());
                    }
                    if *tries >= 2 {
                        card.explanation = Some(r.explanation.clone());
                    }
                }
            }
            Step::Idle | Step::Summary => {}
        }
        card
    }

    /// What to say to the child about the walk as it is, in both languages.
    pub fn words(&self, answers_allowed: bool, redoing: Option<&Redoing>) -> (String, String) {
        let Some(sheet) = &self.sheet else {
            if let (Step::Redo { tries, .. }, Some(r)) = (&self.step, redoing) {
                return redo_words(*tries, r);
            }
            return (
                "把作业拍下来发给我，我帮你看看。".into(),
                "Send me a photo of your homework and I'll have a look.".into(),
            );
        };
        let mistakes = sheet.mistakes();
        match &self.step {
            Step::Mistake { index, help } => {
                let Some(q) = mistakes.get(*index) else {
                    return summary_words(sheet, &self.put_right);
                };
                let n = index + 1;
                let head = if *index == 0 && *help == Help::Hint {
                    format!(
                        "一共 {} 题，对了 {} 题，有 {} 题我们再看看。",
                        sheet.questions.len(),
                        sheet.correct_count(),
                        mistakes.len()
                    )
                } else {
                    String::new()
                };
                match help {
                    Help::Hint => (
                        format!(
                            "{head}第 {n} 道错题：{}（你写的是 {}）。再想想：{}",
                            q.question, q.child_answer, q.hint
                        ),
                        format!(
                            "Mistake {n}: {} (you wrote {}). Think again: {}",
                            q.question, q.child_answer, q.hint
                        ),
                    ),
                    Help::Explanation if answers_allowed => (
                        format!(
                            "我们一步一步来：{} 懂了吗？还不懂可以问我要答案。",
                            q.explanation
                        ),
                        format!(
                            "Step by step: {} Got it? If not, ask me for the answer.",
                            q.explanation
                        ),
                    ),
                    Help::Explanation => (
                        format!(
                            "我们一步一步来：{} 照着这个方法再做一遍吧，做完告诉我你的答案。",
                            q.explanation
                        ),
                        format!(
                            "Step by step: {} Try it again this way and tell me your answer.",
                            q.explanation
                        ),
                    ),
                    Help::Answer => (
                        format!("家长允许告诉你答案：{}。说“下一题”继续。", q.correct_answer),
                        format!(
                            "A parent allows the answer: {}. Say \"next\" to go on.",
                            q.correct_answer
                        ),
                    ),
                }
            }
            Step::Summary => summary_words(sheet, &self.put_right),
            Step::Redo { tries, .. } => match redoing {
                Some(r) => redo_words(*tries, r),
                None => summary_words(sheet, &self.put_right),
            },
            Step::Idle => (
                "好的，作业先到这里。要检查新的作业，就再拍一张发给我。".into(),
                "OK, that's it for homework. Send another photo to check more.".into(),
            ),
        }
    }
}

fn summary_words(sheet: &Worksheet, put_right: &[usize]) -> (String, String) {
    let total = sheet.questions.len();
    let wrong = sheet.mistakes().len();
    if wrong == 0 {
        return (
            format!("{total} 题全对了，真棒！"),
            format!("All {total} right. Well done!"),
        );
    }
    let fixed = put_right.len();
    (
        format!(
            "这次作业一共 {total} 题，对了 {} 题，错了 {wrong} 题（当场改对 {fixed} 题）。错题记下来了，之后的计划里会请你再做一遍。",
            total - wrong
        ),
        format!(
            "{total} questions, {} right, {wrong} wrong ({fixed} put right just now). The mistakes are saved; your plan will ask you to redo them.",
            total - wrong
        ),
    )
}

fn redo_words(tries: u32, r: &Redoing) -> (String, String) {
    match tries {
        0 => (
            format!("重做错题：{} 你的答案是？", r.question),
            format!("Redo a mistake: {} Your answer?", r.question),
        ),
        1 => (
            format!("还不对哦，再想想：{}", r.hint),
            format!("Not yet. Think again: {}", r.hint),
        ),
        _ => (
            format!("我们一步一步来：{} 再试一次吧。", r.explanation),
            format!("Step by step: {} Try once more.", r.explanation),
        ),
    }
}

#[cfg(test)]
mod tests;
