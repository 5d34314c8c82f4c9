//! Parents' questions about a child's progress, answered with words and a
//! chart. Without a model, a question is matched by its words to one of the
//! built-in questions — this week's accuracy per day (a line), the most
//! missed characters (bars), reviews done against due (a pie), minutes
//! practised per day (bars) — each answered by SQL on the store's read-only
//! tool ([`deskmate_store::ReadOnlySql`]: only `SELECT` on views of the
//! family's children, a time and a row limit). With a model set up, the
//! model writes its own SQL through the same tool ([`crate::ask_model`]).
//! A built-in answer is in the question's language: Chinese when the
//! question has a Chinese character, else English (as the model is asked
//! to answer), its chart's title and names too.

use std::time::Duration;

use chrono::{DateTime, Days, NaiveDate, Offset, TimeZone, Utc};
use deskmate_protocol::family::{Chart, ChartKind, ChartSeries, ProgressAnswer};
use deskmate_store::{ProfileKind, ReadOnlySql, SqlRows};
use serde_json::Value;

use crate::{AppError, AppResult, Deskmate};

/// How long one of the tool's queries may run.
const QUERY_TIME_LIMIT: Duration = Duration::from_secs(2);
/// At most this many rows come back from one query.
const QUERY_ROW_LIMIT: usize = 500;

/// The built-in questions: a name and the words that pick it (checked in
/// this order, so "这周复习了几次" is about reviews, not the week's accuracy).
const BUILT_IN: &[(&str, &[&str])] = &[
    (
        "minutes_practised",
        &["多久", "时间", "分钟", "minutes", "how long", "time"],
    ),
    ("reviews_done_vs_due", &["复习", "review"]),
    (
        "most_missed",
        &["错", "不会", "missed", "mistake", "wrong", "hardest"],
    ),
    (
        "accuracy_this_week",
        &[
            "怎么样",
            "准确",
            "正确",
            "这周",
            "本周",
            "进步",
            "accuracy",
            "progress",
            "this week",
            "how is",
            "how did",
        ],
    ),
];

/// The built-in question the words ask, if any.
pub fn built_in_question(question: &str) -> Option<&'static str> {
    let q = question.to_lowercase();
    BUILT_IN
        .iter()
        .find(|(_, words)| words.iter().any(|w| q.contains(w)))
        .map(|(name, _)| *name)
}

impl Deskmate {
    /// Answers a parent's question about the child `profile` (id or name)
    /// at `now`, with a chart. A question no built-in one matches is
    /// refused with the list of those that can be asked.
    pub fn ask(
        &self,
        profile: &str,
        question: &str,
        now: DateTime<Utc>,
    ) -> AppResult<ProgressAnswer> {
        let child = self.find_profile(profile)?;
        if child.kind != ProfileKind::Child {
            return Err(AppError::Invalid(format!(
                "{} is a parent; ask about a child",
                child.name
            )));
        }
        let path = self.store().path().ok_or_else(|| {
            AppError::Invalid("questions need the database file; this store is in memory".into())
        })?;
        let children: Vec<String> = self
            .store()
            .profiles()
            .list()?
            .into_iter()
            .filter(|p| p.kind == ProfileKind::Child)
            .map(|p| p.id)
            .collect();
        let sql = ReadOnlySql::open(path, &children, QUERY_TIME_LIMIT, QUERY_ROW_LIMIT)?;
        // With a model set up, it writes its own queries (crate::ask_model).
        // (once a parent agreed to the model notice; until then the
        // built-in questions answer, and another question says why not).
        if crate::chat::model_notice::agreed(self.store())? {
            return self.ask_model(&child, question, &sql, now);
        }
        let Some(name) = built_in_question(question) else {
            if self.chat().llm_settings()?.model.is_some() {
                crate::chat::model_notice::require(self.store(), &Default::default())?;
            }
            return Err(AppError::AskUnknown {
                question: question.to_string(),
            });
        };
        let zh = question.chars().any(is_cjk);
        let say = |zh_words: String, en_words: String| if zh { zh_words } else { en_words };
        let word = |zh_word: &str, en_word: &str| if zh { zh_word } else { en_word }.to_string();
        let week = Week::ending(now, &child.time_zone);
        let ask = |q: &str, params: &[&str]| sql.query_with(q, params).map_err(AppError::Invalid);
        let id = child.id.as_str();
        let who = child.name.as_str();
        let (text, chart) = match name {
            "accuracy_this_week" | "minutes_practised" => {
                let rows = ask(
                    "SELECT date(created_at, ?2) AS day, avg(accuracy), count(*), sum(duration_ms)
                     FROM attempts WHERE child_id = ?1 AND date(created_at, ?2) >= ?3
                     AND date(created_at, ?2) <= ?4 GROUP BY day ORDER BY day",
                    &[id, &week.shift, &week.first(), &week.last()],
                )?;
                let per_day = |col: usize| -> Vec<f64> {
                    week.days
                        .iter()
                        .map(|d| {
                            rows.rows
                                .iter()
                                .find(|r| r[0].as_str() == Some(d.as_str()))
                                .map(|r| number(&r[col]))
                                .unwrap_or(0.0)
                        })
                        .collect()
                };
                let attempts: f64 = per_day(2).iter().sum();
                if name == "accuracy_this_week" {
                    let acc = per_day(1)
                        .iter()
                        .map(|a| (a * 10.0).round() / 10.0)
                        .collect::<Vec<_>>();
                    let days = acc.iter().filter(|a| **a > 0.0).count();
                    let mean = if days == 0 {
                        0.0
                    } else {
                        acc.iter().sum::<f64>() / days as f64
                    };
                    (
                        say(
                            format!("{who}最近 7 天里有 {days} 天练习，一共背了 {attempts} 次；这几天的平均正确率是 {mean:.1}%"),
                            format!("{who} recited {attempts} times on {days} of the last 7 days; average accuracy on those days {mean:.1}%"),
                        ),
                        chart(
                            ChartKind::Line,
                            &word("每天的正确率（%）", "accuracy per day (%)"),
                            &week.days,
                            vec![(word("正确率", "accuracy"), acc)],
                        ),
                    )
                } else {
                    let minutes: Vec<f64> = per_day(3)
                        .iter()
                        .map(|ms| (ms / 600.0).round() / 100.0)
                        .collect();
                    let total: f64 = minutes.iter().sum();
                    (
                        say(
                            format!("{who}最近 7 天一共练了 {total:.1} 分钟（背了 {attempts} 次）"),
                            format!("{who} practised {total:.1} minutes in the last 7 days ({attempts} recitations)"),
                        ),
                        chart(
                            ChartKind::Bar,
                            &word("每天练习的分钟数", "minutes practised per day"),
                            &week.days,
                            vec![(word("分钟", "minutes"), minutes)],
                        ),
                    )
                }
            }
            "most_missed" => {
                let rows = ask(
                    "SELECT expected, sum(occurrence_count) AS n FROM error_patterns
                     WHERE child_id = ?1 AND expected <> '' GROUP BY expected ORDER BY n DESC, expected LIMIT 10",
                    &[id],
                )?;
                let labels: Vec<String> = rows.rows.iter().map(|r| text_of(&r[0])).collect();
                let counts: Vec<f64> = rows.rows.iter().map(|r| number(&r[1])).collect();
                let text = match labels.first() {
                    None => say(
                        format!("{who}还没有记下反复出错的字"),
                        format!("{who} has no repeated mistakes recorded yet"),
                    ),
                    Some(top) => say(
                        format!(
                            "{who}最常错的是“{top}”（{} 次）；图里是错得最多的 {} 个",
                            counts[0],
                            labels.len()
                        ),
                        format!(
                            "{who} most often misses {top} ({} times); the chart shows the top {}",
                            counts[0],
                            labels.len()
                        ),
                    ),
                };
                (
                    text,
                    chart(
                        ChartKind::Bar,
                        &word("错得最多的字", "most missed"),
                        &labels,
                        vec![(word("次数", "times"), counts)],
                    ),
                )
            }
            _ => {
                let done = first_number(&ask(
                    "SELECT count(*) FROM attempts WHERE child_id = ?1 AND purpose = 'review'
                     AND date(created_at, ?2) >= ?3",
                    &[id, &week.shift, &week.first()],
                )?);
                let due = first_number(&ask(
                    "SELECT count(*) FROM reviews WHERE child_id = ?1 AND status = 'active' AND next_review_at <= ?2",
                    &[id, &now.to_rfc3339()],
                )?);
                (
                    say(
                        format!("{who}最近 7 天复习了 {done} 次；现在有 {due} 篇该复习了"),
                        format!("{who} did {done} reviews in the last 7 days; {due} are due now"),
                    ),
                    chart(
                        ChartKind::Pie,
                        &word("复习", "reviews"),
                        &[
                            word("这周复习了", "done this week"),
                            word("现在该复习", "due now"),
                        ],
                        vec![(word("复习", "reviews"), vec![done, due])],
                    ),
                )
            }
        };
        Ok(ProgressAnswer {
            question: name.into(),
            text,
            chart: Some(chart),
        })
    }
}

/// Whether `c` is a Chinese character (the CJK blocks a question in
/// Chinese uses).
fn is_cjk(c: char) -> bool {
    matches!(c, '\u{4e00}'..='\u{9fff}' | '\u{3400}'..='\u{4dbf}' | '\u{f900}'..='\u{faff}')
}

fn chart(
    kind: ChartKind,
    title: &str,
    labels: &[String],
    series: Vec<(String, Vec<f64>)>,
) -> Chart {
    Chart {
        kind,
        title: title.into(),
        labels: labels.to_vec(),
        series: series
            .into_iter()
            .map(|(name, values)| ChartSeries { name, values })
            .collect(),
    }
}

fn number(v: &Value) -> f64 {
    v.as_f64().unwrap_or(0.0)
}

fn text_of(v: &Value) -> String {
    v.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string())
}

fn first_number(rows: &SqlRows) -> f64 {
    rows.rows
        .first()
        .and_then(|r| r.first())
        .map(number)
        .unwrap_or(0.0)
}

/// The last 7 local days of a child, today last, and the shift SQLite's
/// `date()` takes from UTC to their time zone (`+480 minutes`).
struct Week {
    days: Vec<String>,
    shift: String,
}

impl Week {
    fn ending(now: DateTime<Utc>, time_zone: &str) -> Self {
        let tz: chrono_tz::Tz = time_zone.parse().unwrap_or(chrono_tz::Asia::Shanghai);
        let local = tz.from_utc_datetime(&now.naive_utc());
        let offset_minutes = local.offset().fix().local_minus_utc() / 60;
        let today: NaiveDate = local.date_naive();
        let days = (0..7u64)
            .rev()
            .filter_map(|back| today.checked_sub_days(Days::new(back)))
            .map(|d| d.format("%Y-%m-%d").to_string())
            .collect();
        Self {
            days,
            shift: format!("{offset_minutes:+} minutes"),
        }
    }

    fn first(&self) -> String {
        self.days.first().cloned().unwrap_or_default()
    }

    fn last(&self) -> String {
        self.days.last().cloned().unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn words_pick_the_question() {
        assert_eq!(
            built_in_question("这周背得怎么样?"),
            Some("accuracy_this_week")
        );
        assert_eq!(
            built_in_question("How is the accuracy this week?"),
            Some("accuracy_this_week")
        );
        assert_eq!(built_in_question("哪些字错得最多"), Some("most_missed"));
        assert_eq!(
            built_in_question("这周复习了几次"),
            Some("reviews_done_vs_due")
        );
        assert_eq!(built_in_question("这周练了多久"), Some("minutes_practised"));
        assert_eq!(built_in_question("天为什么是蓝的"), None);
    }

    #[test]
    fn chinese_is_told_by_its_characters() {
        assert!("这周背得怎么样?".chars().any(is_cjk));
        assert!(!"How is the accuracy this week?".chars().any(is_cjk));
        assert!(!"¿Qué tal? 12%".chars().any(is_cjk));
    }

    #[test]
    fn the_week_is_the_childs_local_week() {
        let now = "2026-03-02T20:00:00Z".parse().unwrap();
        let w = Week::ending(now, "Asia/Shanghai");
        assert_eq!(w.shift, "+480 minutes");
        assert_eq!(w.days.len(), 7);
        assert_eq!(w.last(), "2026-03-03");
        assert_eq!(w.first(), "2026-02-25");
    }
}
