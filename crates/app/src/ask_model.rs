//! A parent's question answered by the configured model (issue 20, point
//! 1): the model writes its own `SELECT`s through the same read-only tool
//! the built-in questions use ([`deskmate_store::ReadOnlySql`]: views of the
//! family's children only, a time and a row limit), sees each result — or
//! the tool's refusal as an error text it can act on — and ends with the
//! `answer` function: the text and a small chart spec (bar, line or pie)
//! the front ends draw. A chart out of shape is sent back to the model to
//! mend, never shown.

use deskmate_llm::{ChatRequest, Completion, Message, ToolSpec};
use deskmate_protocol::family::{Chart, ProgressAnswer};
use deskmate_store::{Profile, ReadOnlySql, READ_ONLY_VIEWS};
use serde::Deserialize;
use serde_json::json;

use crate::chat::ChatOptions;
use crate::{AppError, AppResult, Deskmate};

/// The most model calls one question may take.
pub const MAX_STEPS: usize = 6;

/// What a view holds, for the model.
const SCHEMA: &str = "children(id, name, grade, time_zone)
attempts(child_id, child, title, mode, accuracy 0-100, passed 0/1, error_count, duration_ms, purpose 'learn'|'review', errors JSON, created_at RFC 3339 UTC)
reviews(child_id, title, status, reps, lapses, last_review_at, next_review_at, interval_days)
error_patterns(child_id, title, error_type, expected, actual, occurrence_count, last_seen_at)";

fn tools() -> Vec<ToolSpec> {
    vec![
        ToolSpec {
            name: "run_sql".into(),
            description: "Run one read-only SQLite SELECT on the views; returns columns and rows as JSON, or an error to fix.".into(),
            parameters: json!({
                "type": "object",
                "properties": {"sql": {"type": "string"}},
                "required": ["sql"],
                "additionalProperties": false
            }),
        },
        ToolSpec {
            name: "answer".into(),
            description: "Give the parent the answer: a few sentences in the question's language and, when it helps, one chart.".into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "text": {"type": "string"},
                    "chart": {
                        "type": "object",
                        "properties": {
                            "kind": {"type": "string", "enum": ["bar", "line", "pie"]},
                            "title": {"type": "string"},
                            "labels": {"type": "array", "items": {"type": "string"}},
                            "series": {"type": "array", "items": {
                                "type": "object",
                                "properties": {
                                    "name": {"type": "string"},
                                    "values": {"type": "array", "items": {"type": "number"}}
                                },
                                "required": ["name", "values"]
                            }}
                        },
                        "required": ["kind", "title", "labels", "series"]
                    }
                },
                "required": ["text"],
                "additionalProperties": false
            }),
        },
    ]
}

#[derive(Deserialize)]
struct SqlArgs {
    sql: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct AnswerArgs {
    text: String,
    #[serde(default)]
    chart: Option<Chart>,
}

/// Why a chart cannot be drawn, if it cannot.
pub fn chart_problem(c: &Chart) -> Option<String> {
    if c.labels.is_empty() {
        return Some("the chart has no labels".into());
    }
    if c.series.is_empty() {
        return Some("the chart has no series".into());
    }
    if c.labels.len() > 60 {
        return Some("the chart has more than 60 labels".into());
    }
    c.series.iter().find_map(|s| {
        if s.values.len() != c.labels.len() {
            Some(format!(
                "series {:?} has {} values for {} labels",
                s.name,
                s.values.len(),
                c.labels.len()
            ))
        } else if s.values.iter().any(|v| !v.is_finite()) {
            Some(format!(
                "series {:?} has a value that is not a number",
                s.name
            ))
        } else {
            None
        }
    })
}

/// One model call on a thread of its own (the caller may be on an async
/// executor or not).
fn complete(client: &deskmate_llm::LlmClient, req: &ChatRequest) -> AppResult<Completion> {
    std::thread::scope(|s| {
        s.spawn(|| {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| AppError::Thread {
                    what: "the model call's runtime",
                    reason: e.to_string(),
                })?;
            rt.block_on(client.complete(req)).map_err(AppError::Llm)
        })
        .join()
        .map_err(|_| AppError::Thread {
            what: "the model call",
            reason: "it panicked".into(),
        })?
    })
}

impl Deskmate {
    /// `question` about `child`, answered by the configured model through
    /// `sql` at `now` (see the module's note).
    pub(crate) fn ask_model(
        &self,
        child: &Profile,
        question: &str,
        sql: &ReadOnlySql,
        now: chrono::DateTime<chrono::Utc>,
    ) -> AppResult<ProgressAnswer> {
        let client = self.chat().llm_client(&ChatOptions::default())?;
        let system = format!(
            "You answer a parent's question about their child's recitation practice with data. \
             Read it with run_sql (SQLite SELECT only; the views are: {views}).\n{SCHEMA}\n\
             The child asked about: {name} (child_id = '{id}', time zone {tz}). Now: {now}. \
             Query before you answer; never invent figures. End with the answer function: \
             a few sentences in the question's language and, when it helps, one chart \
             (kind bar, line or pie; one value per label in each series).",
            views = READ_ONLY_VIEWS.join(", "),
            name = child.name,
            id = child.id,
            tz = child.time_zone,
            now = now.to_rfc3339(),
        );
        let mut messages = vec![Message::user(question)];
        for _ in 0..MAX_STEPS {
            let req = ChatRequest {
                system: Some(system.clone()),
                messages: messages.clone(),
                tools: tools(),
                ..ChatRequest::default()
            };
            let done = complete(&client, &req)?;
            if done.tool_calls.is_empty() {
                // Words alone are an answer without a chart.
                return Ok(ProgressAnswer {
                    question: "model".into(),
                    text: done.text,
                    chart: None,
                });
            }
            messages.push(Message::assistant(
                done.text.clone(),
                done.tool_calls.clone(),
            ));
            for call in &done.tool_calls {
                let (result, is_error) = match call.name.as_str() {
                    "run_sql" => match serde_json::from_str::<SqlArgs>(&call.arguments) {
                        Ok(args) => match sql.query(&args.sql) {
                            Ok(rows) => (
                                json!({"columns": rows.columns, "rows": rows.rows, "truncated": rows.truncated})
                                    .to_string(),
                                false,
                            ),
                            Err(e) => (format!("Error: {e}"), true),
                        },
                        Err(e) => (format!("Error: the arguments are not {{\"sql\": \"…\"}}: {e}"), true),
                    },
                    "answer" => match serde_json::from_str::<AnswerArgs>(&call.arguments) {
                        Ok(a) => match a.chart.as_ref().and_then(chart_problem) {
                            None if !a.text.trim().is_empty() => {
                                return Ok(ProgressAnswer {
                                    question: "model".into(),
                                    text: a.text,
                                    chart: a.chart,
                                })
                            }
                            None => ("Error: the answer's text is empty".into(), true),
                            Some(why) => (format!("Error: {why}; answer again"), true),
                        },
                        Err(e) => (format!("Error: the answer is out of shape: {e}"), true),
                    },
                    other => (format!("Error: there is no tool {other:?}; use run_sql or answer"), true),
                };
                messages.push(Message::tool_result(call.id.clone(), result, is_error));
            }
        }
        Err(AppError::Invalid(format!(
            "the model did not answer within {MAX_STEPS} steps; ask again in other words"
        )))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

    use super::*;
    use deskmate_llm::scripted::{openai, ScriptedServer};
    use deskmate_protocol::family::ChartKind;
    use deskmate_store::{NewProfile, ProfileKind};

    #[test]
    fn the_model_queries_is_refused_a_write_mends_its_chart_and_answers() {
        let bad_chart = r#"{"text": "两个孩子", "chart": {"kind": "bar", "title": "t", "labels": ["a", "b"], "series": [{"name": "n", "values": [1]}]}}"#;
        let good = r#"{"text": "小明和小红都在练习。", "chart": {"kind": "pie", "title": "孩子", "labels": ["小明", "小红"], "series": [{"name": "孩子", "values": [1, 1]}]}}"#;
        let server = ScriptedServer::start(vec![
            openai::tool_calls(
                None,
                &[(
                    "c1",
                    "run_sql",
                    r#"{"sql": "SELECT name FROM children ORDER BY name"}"#,
                )],
            ),
            openai::tool_calls(
                None,
                &[("c2", "run_sql", r#"{"sql": "DELETE FROM attempts"}"#)],
            ),
            openai::tool_calls(None, &[("c3", "answer", bad_chart)]),
            openai::tool_calls(None, &[("c4", "answer", good)]),
        ])
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(crate::Config::in_dir(dir.path())).unwrap();
        for name in ["小明", "小红"] {
            app.store()
                .profiles()
                .add(NewProfile {
                    kind: Some(ProfileKind::Child),
                    name: name.into(),
                    ..Default::default()
                })
                .unwrap();
        }
        app.chat()
            .save_llm_settings("openai:m", Some(&server.base_url()))
            .unwrap();
        app.chat().agree_model_notice().unwrap();
        let answer = app
            .ask("小明", "两个孩子谁练得多?", chrono::Utc::now())
            .unwrap();
        assert_eq!(answer.question, "model");
        assert_eq!(answer.text, "小明和小红都在练习。");
        let chart = answer.chart.unwrap();
        assert_eq!((chart.kind, chart.labels.len()), (ChartKind::Pie, 2));

        let sent = server.requests();
        assert_eq!(sent.len(), 4);
        let last_tool = |i: usize| {
            let messages = sent[i].body["messages"].as_array().unwrap().clone();
            messages.last().unwrap()["content"].to_string()
        };
        // The query's rows, the write refused in words, the chart sent back.
        assert!(last_tool(1).contains("小红") && last_tool(1).contains("小明"));
        assert!(last_tool(2).contains("Error"), "{}", last_tool(2));
        assert!(
            last_tool(3).contains("has 1 values for 2 labels"),
            "{}",
            last_tool(3)
        );
        let system = sent[0].body["messages"][0]["content"].to_string();
        assert!(system.contains("attempts(child_id"), "{system}");
        assert_eq!(sent[0].body["tools"].as_array().unwrap().len(), 2);
    }
}
