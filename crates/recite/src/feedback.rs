//! What the companion says after a recitation, in Chinese and English, for a
//! 6–9 year old: praise first; the first time an error is made, the correct
//! text, kindly; from the second time on, why it happens and a memory tip.
//! At most [`SPOKEN_ERRORS`] errors are spoken, so a child is not buried in
//! corrections; every error still gets its own item for the screen.

use serde::{Deserialize, Serialize};

use crate::reference::Reference;
use crate::sound;
use crate::tips::Tip;
use crate::verdict::{ErrorKind, ErrorType, RecitationError, Verdict};
use crate::{Lang, Mode};

/// How many errors the spoken summary goes into.
pub const SPOKEN_ERRORS: usize = 3;

/// Feedback on one error.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ErrorFeedback {
    /// Index into the verdict's errors.
    pub error: usize,
    /// How often the child has made this error (1 = first time).
    pub occurrence: u32,
    pub zh: String,
    pub en: String,
    /// The memory tip, from the second occurrence on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tip: Option<Tip>,
}

/// Everything said about one attempt.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feedback {
    /// The spoken summary.
    pub zh: String,
    pub en: String,
    pub items: Vec<ErrorFeedback>,
}

/// A verdict as a front end shows a check outside any child's history
/// (`deskmate recite check --json`, the CLI's verdict on a recording, the
/// coming HTTP API): the checker's judgement, whether it reaches the pass
/// mark, and what to tell the child.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Judgement {
    #[serde(flatten)]
    pub verdict: Verdict,
    pub passed: bool,
    pub feedback: Feedback,
}

impl Judgement {
    /// Judges `verdict` against the pass mark `threshold` with feedback in
    /// which every error counts as a first occurrence (so no memory tips).
    pub fn new(reference: &Reference, verdict: Verdict, threshold: f64) -> Self {
        let feedback = compose(reference, &verdict, threshold, &[], &[]);
        Self {
            passed: verdict.passed(threshold),
            verdict,
            feedback,
        }
    }
}

/// A quote of what was expected or said is at most this many characters
/// (Chinese) or words (English); longer ones end in "…". A child cannot take
/// in more, and a transcript can be pages of noise.
pub const QUOTE_MAX: usize = 8;

/// How far from the pass mark a score may be and still be "almost there".
const ALMOST_WITHIN: f64 = 15.0;

/// Composes the feedback for a verdict against the child's pass mark
/// (`threshold`, in percent). `occurrences[i]` and `tips[i]` belong to
/// `verdict.errors[i]` (occurrence 1 when unknown, e.g. a check without a
/// profile).
///
/// The opening is graded by how far the child is: perfect, passed, almost
/// there (within [`ALMOST_WITHIN`] points of the pass mark), more than half
/// right, a start made, nothing heard. The spoken summary says each thing
/// once (two unclear stretches of one line are one request to say it again).
pub fn compose(
    reference: &Reference,
    verdict: &Verdict,
    threshold: f64,
    occurrences: &[u32],
    tips: &[Option<Tip>],
) -> Feedback {
    let passed = verdict.passed(threshold);
    let items: Vec<ErrorFeedback> = verdict
        .errors
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let occurrence = occurrences.get(i).copied().unwrap_or(1).max(1);
            let tip = if occurrence >= 2 {
                tips.get(i).cloned().flatten()
            } else {
                None
            };
            let (zh, en) = error_feedback(reference, verdict.mode, e, occurrence, tip.as_ref());
            ErrorFeedback {
                error: i,
                occurrence,
                zh,
                en,
                tip,
            }
        })
        .collect();
    let pct = verdict.accuracy;
    let (mut zh, mut en) = if verdict.is_perfect() {
        (
            "太棒了！一个字都没错，全部背对了！".to_string(),
            "Wonderful! Every single word was right!".to_string(),
        )
    } else if passed {
        (
            format!("背得真好！正确率 {pct}%，过关啦！"),
            format!("Well done! {pct}% right — you passed!"),
        )
    } else if verdict.correct == 0 {
        (
            "这次好像还没背出来。没关系，我们先一起读一遍，再试试！".to_string(),
            "I didn't hear the text this time. That's OK — let's read it together once, then try again!".to_string(),
        )
    } else if pct >= threshold - ALMOST_WITHIN {
        (
            format!("正确率 {pct}%，还差一点点就过关了，我们再练一练！"),
            format!("{pct}% right — almost there! Let's practise a little more."),
        )
    } else if pct >= 50.0 {
        (
            format!("正确率 {pct}%，已经背出一大半了！我们把没背熟的地方再练练。"),
            format!("{pct}% right — more than half of it is there! Let's practise the parts that are not yet."),
        )
    } else {
        (
            format!("正确率 {pct}%，已经开了个好头！我们一句一句来，先读熟再背。"),
            format!("{pct}% right — a good start! Let's take it one line at a time: read it, then recite it."),
        )
    };
    // Each distinct thing once, in the verdict's order.
    let mut distinct: Vec<&ErrorFeedback> = Vec::new();
    for item in &items {
        if !distinct.iter().any(|d| d.zh == item.zh) {
            distinct.push(item);
        }
    }
    for item in distinct.iter().take(SPOKEN_ERRORS) {
        zh.push_str(&item.zh);
        en.push(' ');
        en.push_str(&item.en);
    }
    match distinct.len().saturating_sub(SPOKEN_ERRORS) {
        0 => {}
        1 => {
            zh.push_str("还有1个小地方，看看屏幕上的提示吧。");
            en.push_str(" There is one more little thing to look at on the screen.");
        }
        more => {
            zh.push_str(&format!("还有{more}个小地方，看看屏幕上的提示吧。"));
            en.push_str(&format!(
                " There are {more} more little things to look at on the screen."
            ));
        }
    }
    Feedback { zh, en, items }
}

/// `s` in quotation marks, cut to [`QUOTE_MAX`] characters or words.
fn quote(lang: Lang, s: &str) -> String {
    let cut = clip(lang, s);
    match lang {
        Lang::Zh => format!("「{cut}」"),
        Lang::En => format!("“{cut}”"),
    }
}

fn clip(lang: Lang, s: &str) -> String {
    match lang {
        Lang::Zh if s.chars().count() > QUOTE_MAX => {
            format!("{}…", s.chars().take(QUOTE_MAX).collect::<String>())
        }
        Lang::En if s.split_whitespace().count() > QUOTE_MAX => {
            format!(
                "{}…",
                s.split_whitespace()
                    .take(QUOTE_MAX)
                    .collect::<Vec<_>>()
                    .join(" ")
            )
        }
        _ => s.to_string(),
    }
}

fn error_feedback(
    reference: &Reference,
    mode: Mode,
    e: &RecitationError,
    occurrence: u32,
    tip: Option<&Tip>,
) -> (String, String) {
    let lang = reference.lang();
    let line = reference
        .lines()
        .get(e.line.saturating_sub(1))
        .map(|l| l.text.clone())
        .unwrap_or_default();
    let (ql, qe, qa) = (
        quote(lang, &line),
        quote(lang, &e.expected),
        quote(lang, &e.actual),
    );
    let n = e.line;
    if e.uncertain {
        // A teacher's re-ask: which line, and only that line again.
        let nth = line_number_zh(n);
        return (
            format!("第{nth}句{ql}没听清，再读一遍好吗？"),
            format!("I didn't catch line {n} {ql} clearly — could you say it again?"),
        );
    }
    let first = match (e.error_type, e.kind) {
        (ErrorType::Omission, ErrorKind::Line) => (
            format!("第{n}句{ql}这次漏掉了，我们把它补上：{line}。"),
            format!("Line {n} {ql} got left out — let's put it back: {line}."),
        ),
        (ErrorType::Omission, _) => (
            format!("第{n}句少了{qe}，完整的是：{line}。"),
            format!("Line {n} is missing {qe}; the whole line is: {line}."),
        ),
        (ErrorType::Insertion, _) => (
            format!("第{n}句多了{qa}，原文是：{line}。"),
            format!("Line {n} has an extra {qa}; the text is: {line}."),
        ),
        (ErrorType::Substitution, ErrorKind::Tone) => {
            let p = e
                .expected
                .chars()
                .next()
                .and_then(sound::pinyin_with_tone)
                .unwrap_or("");
            (
                format!("{qe}读 {p}，声调再注意一下：{line}。"),
                format!("{qe} is read {p} — mind the tone: {line}."),
            )
        }
        (ErrorType::Substitution, _) if mode == Mode::Text && lang == Lang::Zh => (
            format!("第{n}句的{qe}写成了{qa}，正确的是：{line}。"),
            format!("In line {n}, {qe} was written as {qa}; it should be: {line}."),
        ),
        (ErrorType::Substitution, _) => (
            format!("第{n}句的{qe}说成了{qa}，原文是：{line}。"),
            format!("In line {n}, {qe} came out as {qa}; the text is: {line}."),
        ),
        (ErrorType::Order, _) => {
            let shown = if e.span.is_empty() {
                e.expected.clone()
            } else {
                reference.display(e.span.clone())
            };
            (
                format!("第{n}句附近顺序有点乱，正确的顺序是：{shown}。"),
                format!("The order got mixed up around line {n}; it goes: {shown}."),
            )
        }
    };
    if occurrence < 2 {
        return first;
    }
    let (why_zh, why_en) = why(e);
    let (tip_zh, tip_en) = tip.map_or((String::new(), String::new()), |t| {
        (t.zh.clone(), t.en.clone())
    });
    (
        format!("这个地方已经是第{occurrence}次出错啦。{why_zh}小窍门：{tip_zh}"),
        format!(
            "This is the {} time this one slipped. {why_en} Tip: {tip_en}",
            ordinal_en(occurrence)
        ),
    )
}

/// Why an error of this kind tends to happen, in a child's words.
fn why(e: &RecitationError) -> (&'static str, &'static str) {
    match (e.error_type, e.kind) {
        (ErrorType::Substitution, ErrorKind::Tone) => (
            "这两个读音只差一个声调，嘴巴一快就容易跑调。",
            "The two sounds differ only in tone, so it slips when you go fast.",
        ),
        (ErrorType::Substitution, ErrorKind::Homophone) => (
            "这两个字读音一样，写的时候手会先想到更熟悉的那个字。",
            "The two characters sound the same, so your hand reaches for the more familiar one.",
        ),
        (ErrorType::Substitution, _) => (
            "这个字不常用，嘴巴容易换成一个熟悉的字。",
            "This word is less familiar, so a more familiar one jumps in.",
        ),
        (ErrorType::Omission, ErrorKind::Line) => (
            "这一句夹在别的句子中间，背快了就容易跳过去。",
            "This line sits between others, so it is easy to skip when you rush.",
        ),
        (ErrorType::Omission, _) => (
            "这几个字念得快的时候容易被吞掉。",
            "These words get swallowed when you go fast.",
        ),
        (ErrorType::Insertion, _) => (
            "背得顺口的时候，嘴巴会自己多加字。",
            "When it flows, your mouth adds words by itself.",
        ),
        (ErrorType::Order, _) => (
            "这几句（几个字）很像，顺序容易记混。",
            "These parts look alike, so their order is easy to mix up.",
        ),
    }
}

/// A line's number as a teacher says it: 第二句, 第十二句.
fn line_number_zh(n: usize) -> String {
    crate::numerals::zh_integer(n as u64)
}

fn ordinal_en(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::tips::{TemplateTips, TipRequest};
    use crate::{check, Transcript};

    const POEM: &str = "床前明月光，疑是地上霜。举头望明月，低头思故乡。";

    #[test]
    fn a_judgement_is_the_verdict_with_its_pass_and_feedback_side_by_side() {
        let r = Reference::new(POEM, None).unwrap();
        let v = check(
            &r,
            &Transcript::new("床前明月光，举头望明月，低头思故乡。"),
            Mode::Text,
        )
        .unwrap();
        let judged = Judgement::new(&r, v.clone(), 90.0);
        assert!(!judged.passed);
        let json = serde_json::to_value(&judged).unwrap();
        let mut keys: Vec<&str> = json
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        keys.sort_unstable();
        assert_eq!(
            keys,
            [
                "accuracy",
                "correct",
                "errors",
                "feedback",
                "fillers",
                "lang",
                "lines",
                "mode",
                "passed",
                "restarted",
                "units"
            ]
        );
        assert_eq!(json["accuracy"], serde_json::json!(v.accuracy));
        assert!(
            json["feedback"]["zh"]
                .as_str()
                .unwrap()
                .contains("疑是地上霜"),
            "{json}"
        );
        // It reads back (the errors' positions in the transcript are not sent).
        let back: Judgement = serde_json::from_value(json).unwrap();
        assert_eq!(
            (back.passed, &back.feedback),
            (judged.passed, &judged.feedback)
        );
        assert_eq!(back.verdict.lines, judged.verdict.lines);
    }

    fn run(transcript: &str, mode: Mode, occurrence: u32) -> Feedback {
        let r = Reference::new(POEM, None).unwrap();
        let v = check(&r, &Transcript::new(transcript), mode).unwrap();
        let occ = vec![occurrence; v.errors.len()];
        let tips: Vec<Option<Tip>> = v
            .errors
            .iter()
            .map(|e| Some(TemplateTips.tip(&TipRequest::from_error(&r, e, mode, "", occurrence))))
            .collect();
        compose(&r, &v, 85.0, &occ, &tips)
    }

    #[test]
    fn perfect_is_praised() {
        let f = run(POEM, Mode::Voice, 1);
        assert!(f.items.is_empty());
        assert!(f.zh.contains("太棒了") && f.en.contains("Wonderful"));
    }

    #[test]
    fn first_time_gives_the_correct_text() {
        let f = run("床前明月光，举头望明月，低头思故乡。", Mode::Voice, 1);
        assert_eq!(f.items.len(), 1);
        assert!(
            f.items[0].zh.contains("疑是地上霜") && f.items[0].tip.is_none(),
            "{}",
            f.items[0].zh
        );
        assert!(f.zh.contains("疑是地上霜"));
    }

    #[test]
    fn second_time_explains_and_gives_a_tip() {
        let f = run(
            "床前明月光，疑是地上霜。举偷望明月，低头思故乡。",
            Mode::Voice,
            2,
        );
        let item = &f.items[0];
        assert!(
            item.zh.contains("第2次") && item.zh.contains("声调") && item.zh.contains("小窍门"),
            "{}",
            item.zh
        );
        assert!(
            item.en.contains("2nd time") && item.en.contains("Tip:"),
            "{}",
            item.en
        );
        assert!(item.tip.as_ref().is_some_and(|t| item.zh.contains(&t.zh)));
    }

    #[test]
    fn many_errors_are_not_all_spoken() {
        let f = run("床", Mode::Text, 1);
        assert!(f.items.len() > SPOKEN_ERRORS);
        assert!(
            f.zh.contains("还有1个") && f.en.contains("one more little thing"),
            "{}",
            f.en
        );
    }

    #[test]
    fn order_feedback_shows_the_lines() {
        let f = run(
            "疑是地上霜，床前明月光。举头望明月，低头思故乡。",
            Mode::Voice,
            1,
        );
        assert!(f.zh.contains("床前明月光，疑是地上霜"), "{}", f.zh);
    }

    #[test]
    fn the_opening_is_graded_by_how_far_the_child_is() {
        // 1 of 20 characters: a start, not "almost there".
        let f = run("床", Mode::Text, 1);
        assert!(
            f.zh.contains("好头") && !f.zh.contains("还差一点点"),
            "{}",
            f.zh
        );
        assert!(
            f.en.contains("good start") && !f.en.contains("almost"),
            "{}",
            f.en
        );
        // 15 of 20 (75 %, pass mark 85): almost there.
        let f = run("床前明月光，疑是地上霜。举头望明月。", Mode::Text, 1);
        assert!(f.zh.contains("还差一点点"), "{}", f.zh);
        // 10 of 20 (50 %): more than half.
        let f = run("床前明月光，疑是地上霜。", Mode::Text, 1);
        assert!(
            f.zh.contains("一大半") && f.en.contains("more than half"),
            "{}",
            f.en
        );
    }

    #[test]
    fn quotes_are_short_however_long_the_slip() {
        let noise = "哈".repeat(5_000);
        let f = run(
            &format!("床前明月光，{noise}疑是地上霜。举头望明月，低头思故乡。"),
            Mode::Voice,
            1,
        );
        assert!(!f.items.is_empty());
        for text in f
            .items
            .iter()
            .flat_map(|i| [&i.zh, &i.en])
            .chain([&f.zh, &f.en])
        {
            assert!(
                text.chars().count() < 300,
                "{} characters: {text}",
                text.chars().count()
            );
        }
        assert!(
            f.zh.contains(&format!("「{}…」", "哈".repeat(QUOTE_MAX))),
            "{}",
            f.zh
        );
        assert_eq!(
            clip(Lang::En, "one two three four five six seven eight nine ten"),
            "one two three four five six seven eight…"
        );
    }

    #[test]
    fn each_thing_is_said_once() {
        // Two unclear stretches in line 1: one request to say it again.
        let r = Reference::new(POEM, None).unwrap();
        let heard = "窗前明月广，疑是地上霜。举头望明月，低头思故乡。";
        let mut conf = vec![0.99_f32; heard.chars().count()];
        conf[0] = 0.3;
        conf[4] = 0.3;
        let v = check(&r, &Transcript::with_confidences(heard, conf), Mode::Voice).unwrap();
        assert!(
            v.errors
                .iter()
                .filter(|e| e.uncertain && e.line == 1)
                .count()
                >= 2,
            "{v:?}"
        );
        let f = compose(&r, &v, 85.0, &[], &[]);
        assert_eq!(f.zh.matches("没听清").count(), 1, "{}", f.zh);
        assert!(
            f.zh.contains("第一句「床前明月光」没听清，再读一遍好吗？"),
            "{}",
            f.zh
        );
        assert_eq!(
            f.en.matches("could you say it again").count(),
            1,
            "{}",
            f.en
        );
        assert!(f.en.contains("I didn't catch line 1"), "{}", f.en);
    }

    #[test]
    fn a_re_ask_names_its_line_as_a_teacher_would() {
        assert_eq!(line_number_zh(2), "二");
        assert_eq!(line_number_zh(12), "十二");
        let r = Reference::new(POEM, None).unwrap();
        let heard = "床前明月光，疑是地上光。举头望明月，低头思故乡。";
        let mut conf = vec![0.99_f32; heard.chars().count()];
        conf[10] = 0.3;
        let v = check(&r, &Transcript::with_confidences(heard, conf), Mode::Voice).unwrap();
        let f = compose(&r, &v, 85.0, &[], &[]);
        assert!(
            f.zh.contains("第二句「疑是地上霜」没听清，再读一遍好吗？"),
            "{}",
            f.zh
        );
        assert!(
            f.en.contains("I didn't catch line 2 「疑是地上霜」 clearly — could you say it again?"),
            "{}",
            f.en
        );
    }

    #[test]
    fn ordinals() {
        assert_eq!(ordinal_en(2), "2nd");
        assert_eq!(ordinal_en(11), "11th");
        assert_eq!(ordinal_en(23), "23rd");
    }
}
