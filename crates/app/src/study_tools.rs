//! The companion's study tools (read-only): look up materials, a child's
//! recent attempts, repeated mistakes and due reviews, and check a typed
//! recitation without recording it. The `agents/` files give them to the
//! subagents that need them (the recitation coach, the progress reader, …).
//!
//! Whose data: in a child's thread, always that child's — a child cannot
//! read a sibling's history. In a parent's thread, one with no profile, or
//! none (a routine's tool node) the `child` argument names the child (name
//! or id); it may be left out when the family has exactly one child.

use std::sync::Arc;

use chrono::Utc;
use deskmate_agent::tools::{Tool, ToolContext, ToolFuture, ToolOutput, ToolSet};
use deskmate_recite::history::{self, HistoryFilter};
use deskmate_recite::{check, patterns, Mode, Reference, Transcript};
use deskmate_store::{MaterialFilter, ProfileKind};
use serde::Deserialize;
use serde_json::{json, Value};

use deskmate_store::Store;

/// Most rows a tool returns.
const MAX_ROWS: usize = 50;

/// Which study tool.
#[derive(Clone, Copy)]
enum Kind {
    FindMaterials,
    RecentAttempts,
    ErrorPatterns,
    DueReviews,
    ReciteCheck,
}

struct StudyTool {
    store: Store,
    kind: Kind,
}

fn child_param() -> Value {
    json!({"type": "string", "description": "The child (name or id). Only in a parent's conversation; a child's conversation always uses that child."})
}

fn limit_param() -> Value {
    json!({"type": "integer", "minimum": 1, "maximum": MAX_ROWS, "description": "At most this many (default 10)."})
}

#[derive(Deserialize, Default)]
struct Args {
    #[serde(default)]
    child: Option<String>,
    #[serde(default)]
    query: Option<String>,
    #[serde(default)]
    lang: Option<String>,
    #[serde(default)]
    material: Option<String>,
    #[serde(default)]
    transcript: Option<String>,
    #[serde(default)]
    mode: Option<String>,
    #[serde(default)]
    limit: Option<usize>,
}

impl Tool for StudyTool {
    fn name(&self) -> &'static str {
        match self.kind {
            Kind::FindMaterials => "find_materials",
            Kind::RecentAttempts => "recent_attempts",
            Kind::ErrorPatterns => "error_patterns",
            Kind::DueReviews => "due_reviews",
            Kind::ReciteCheck => "recite_check",
        }
    }

    fn description(&self) -> &'static str {
        match self.kind {
            Kind::FindMaterials => "Finds poems and texts in the recitation library by title, author or words in them; returns id, title, author, language and grade.",
            Kind::RecentAttempts => "A child's most recent recitation attempts, newest first: material, accuracy, passed, the errors made, when.",
            Kind::ErrorPatterns => "A child's repeated recitation mistakes, most frequent first: the material, what was expected and what was said, how often.",
            Kind::DueReviews => "The recitations a child should review today (spaced repetition), most overdue first.",
            Kind::ReciteCheck => "Checks a typed or heard recitation against a library material and returns the accuracy and each error with its line. Nothing is recorded.",
        }
    }

    fn parameters(&self) -> Value {
        match self.kind {
            Kind::FindMaterials => json!({"type": "object", "properties": {
                "query": {"type": "string", "description": "Words of the title, author or text, e.g. 静夜思 or 李白."},
                "lang": {"type": "string", "enum": ["zh", "en"]},
                "limit": limit_param()}}),
            Kind::RecentAttempts => json!({"type": "object", "properties": {
                "child": child_param(),
                "material": {"type": "string", "description": "Only attempts at this material (id or title)."},
                "limit": limit_param()}}),
            Kind::ErrorPatterns => json!({"type": "object", "properties": {
                "child": child_param(),
                "material": {"type": "string", "description": "Only mistakes in this material (id or title)."},
                "limit": limit_param()}}),
            Kind::DueReviews => json!({"type": "object", "properties": {"child": child_param()}}),
            Kind::ReciteCheck => json!({"type": "object", "properties": {
                "material": {"type": "string", "description": "The material (id or exact title)."},
                "transcript": {"type": "string", "description": "What the child wrote or said."},
                "mode": {"type": "string", "enum": ["text", "voice"], "description": "text compares characters exactly (默写); voice forgives same-sounding characters and restarts. Default text."}},
                "required": ["material", "transcript"]}),
        }
    }

    fn call(&self, ctx: ToolContext, args: Value) -> ToolFuture {
        let (store, kind) = (self.store.clone(), self.kind);
        Box::pin(async move {
            let args: Args = match serde_json::from_value(args) {
                Ok(a) => a,
                Err(e) => return ToolOutput::error(format!("invalid arguments: {e}")),
            };
            let thread_id = ctx.thread_id.clone();
            let work = tokio::task::spawn_blocking(move || run(&store, kind, &thread_id, args));
            match work.await {
                Ok(Ok(value)) => ToolOutput::ok(value.to_string()),
                Ok(Err(message)) => ToolOutput::error(message),
                Err(e) => ToolOutput::error(format!("the tool stopped: {e}")),
            }
        })
    }
}

/// The child whose data a call reads (see the module docs).
fn whose(store: &Store, thread_id: &str, asked: Option<&str>) -> Result<String, String> {
    // No thread: a routine's tool node, which names its child in `child`.
    let thread = if thread_id.is_empty() {
        None
    } else {
        Some(deskmate_agent::persist::get_thread(store, thread_id).map_err(|e| e.to_string())?)
    };
    if let Some(pid) = thread.and_then(|t| t.profile_id) {
        let profile = store.profiles().get(&pid).map_err(|e| e.to_string())?;
        if profile.kind == ProfileKind::Child {
            return Ok(profile.id);
        }
    }
    let children: Vec<_> = store
        .profiles()
        .list()
        .map_err(|e| e.to_string())?
        .into_iter()
        .filter(|p| p.kind == ProfileKind::Child)
        .collect();
    match asked.map(str::trim).filter(|a| !a.is_empty()) {
        Some(key) => {
            let p = crate::recite::find_profile(store, key).map_err(|e| e.to_string())?;
            if p.kind != ProfileKind::Child {
                return Err(format!("{} is a parent; name a child", p.name));
            }
            Ok(p.id)
        }
        None => match children.as_slice() {
            [one] => Ok(one.id.clone()),
            [] => Err("this family has no child profile yet".into()),
            many => Err(format!(
                "say which child: {}",
                many.iter()
                    .map(|p| p.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        },
    }
}

/// A material's title, for rows that name it (empty if it was deleted).
fn title(store: &Store, id: &str) -> String {
    store
        .materials()
        .get(id)
        .map(|m| m.title)
        .unwrap_or_default()
}

fn limit(args: &Args) -> usize {
    args.limit.unwrap_or(10).clamp(1, MAX_ROWS)
}

fn run(store: &Store, kind: Kind, thread_id: &str, args: Args) -> Result<Value, String> {
    let material_id = |key: &Option<String>| -> Result<Option<String>, String> {
        match key.as_deref().map(str::trim).filter(|k| !k.is_empty()) {
            Some(k) => Ok(Some(
                crate::recite::find_material(store, k)
                    .map_err(|e| e.to_string())?
                    .id,
            )),
            None => Ok(None),
        }
    };
    match kind {
        Kind::FindMaterials => {
            let list = store
                .materials()
                .list(&MaterialFilter {
                    lang: args.lang.clone(),
                    search: args.query.clone(),
                    ..Default::default()
                })
                .map_err(|e| e.to_string())?;
            Ok(Value::Array(
                list.into_iter()
                    .take(limit(&args))
                    .map(|m| json!({"id": m.id, "title": m.title, "author": m.author, "lang": m.lang, "grade": m.grade}))
                    .collect(),
            ))
        }
        Kind::RecentAttempts => {
            let child = whose(store, thread_id, args.child.as_deref())?;
            let filter = HistoryFilter {
                material_id: material_id(&args.material)?,
                limit: limit(&args),
                ..Default::default()
            };
            let rows = history::list(store, &child, &filter).map_err(|e| e.to_string())?;
            Ok(Value::Array(
                rows.into_iter()
                    .map(|a| {
                        let errors: Vec<Value> = a
                            .errors
                            .iter()
                            .filter(|e| !e.uncertain)
                            .map(|e| json!({"line": e.line, "type": e.error_type.as_str(), "expected": e.expected, "said": e.actual}))
                            .collect();
                        json!({"material": title(store, &a.material_id), "accuracy": a.accuracy, "passed": a.passed, "mode": a.mode, "errors": errors, "at": a.created_at})
                    })
                    .collect(),
            ))
        }
        Kind::ErrorPatterns => {
            let child = whose(store, thread_id, args.child.as_deref())?;
            let material = material_id(&args.material)?;
            let rows = patterns::list(store, &child, material.as_deref(), limit(&args))
                .map_err(|e| e.to_string())?;
            Ok(Value::Array(
                rows.into_iter()
                    .map(|p| json!({"material": title(store, &p.material_id), "line": p.line, "type": p.error_type, "expected": p.expected, "said": p.actual, "times": p.occurrence_count, "last_seen": p.last_seen_at}))
                    .collect(),
            ))
        }
        Kind::DueReviews => {
            let child = whose(store, thread_id, args.child.as_deref())?;
            let due = deskmate_recite::schedule::due(store, &child, Utc::now())
                .map_err(|e| e.to_string())?;
            Ok(Value::Array(
                due.into_iter()
                    .map(|d| json!({"material": d.title, "overdue_days": d.overdue_days, "reviews_so_far": d.reps}))
                    .collect(),
            ))
        }
        Kind::ReciteCheck => {
            let key = args.material.clone().unwrap_or_default();
            let material = crate::recite::find_material(store, &key).map_err(|e| e.to_string())?;
            let mode = match args.mode.as_deref().unwrap_or("text") {
                "voice" => Mode::Voice,
                "text" => Mode::Text,
                other => return Err(format!("mode is text or voice, not {other:?}")),
            };
            let reference = Reference::new(&material.body, material.lang.parse().ok())
                .map_err(|e| e.to_string())?;
            let verdict = check(
                &reference,
                &Transcript::new(args.transcript.unwrap_or_default()),
                mode,
            )
            .map_err(|e| e.to_string())?;
            let errors: Vec<Value> = verdict
                .errors
                .iter()
                .map(|e| json!({"line": e.line, "type": e.error_type.as_str(), "kind": e.kind.as_str(), "expected": e.expected, "said": e.actual}))
                .collect();
            Ok(
                json!({"material": material.title, "accuracy": verdict.accuracy, "correct": verdict.correct, "units": verdict.units, "errors": errors}),
            )
        }
    }
}

/// Adds the study tools, reading `store`, to `tools`.
pub(crate) fn add_study_tools(store: &Store, tools: &mut ToolSet) {
    for kind in [
        Kind::FindMaterials,
        Kind::RecentAttempts,
        Kind::ErrorPatterns,
        Kind::DueReviews,
        Kind::ReciteCheck,
    ] {
        tools.add(Arc::new(StudyTool {
            store: store.clone(),
            kind,
        }));
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use crate::recite::NewAttempt;
    use crate::Config;
    use crate::Deskmate;
    use deskmate_agent::tools::ToolContext;
    use deskmate_agent::Sandbox;
    use deskmate_store::NewProfile;

    const SLIP: &str = "床前明月光，疑是地上霜。举偷望明月，低头思故乡。";

    async fn call(app: &Deskmate, thread: &str, name: &str, args: Value) -> ToolOutput {
        let mut tools = ToolSet::default();
        add_study_tools(app.store(), &mut tools);
        let dir = tempfile::tempdir().unwrap();
        let ctx = ToolContext {
            sandbox: Arc::new(Sandbox::open(dir.path()).unwrap()),
            thread_id: thread.into(),
            tool_call_id: "c".into(),
            run: None,
        };
        tools.call(ctx, name, &args.to_string()).await
    }

    #[tokio::test]
    async fn a_child_s_thread_reads_that_child_s_history_only() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let add = |name: &str, kind| {
            app.store()
                .profiles()
                .add(NewProfile {
                    name: name.into(),
                    kind: Some(kind),
                    pin: (kind == ProfileKind::Parent).then(|| "2468".into()),
                    ..Default::default()
                })
                .unwrap()
        };
        let mum = add("妈妈", ProfileKind::Parent);
        let ming = add("小明", ProfileKind::Child);
        let hong = add("小红", ProfileKind::Child);
        let poem = app.find_material("静夜思").unwrap();
        for at in [
            Utc::now() - chrono::Duration::days(10),
            Utc::now() - chrono::Duration::days(9),
        ] {
            app.record_attempt(NewAttempt {
                profile_id: ming.id.clone(),
                material_id: poem.id.clone(),
                transcript: Transcript::new(SLIP),
                mode: Mode::Voice,
                at,
                duration_ms: None,
                session_id: None,
            })
            .unwrap();
        }
        let ming_thread =
            deskmate_agent::persist::create_thread(app.store(), Some(&ming.id), "t").unwrap();
        let hong_thread =
            deskmate_agent::persist::create_thread(app.store(), Some(&hong.id), "t").unwrap();
        let mum_thread =
            deskmate_agent::persist::create_thread(app.store(), Some(&mum.id), "t").unwrap();

        let out = call(&app, &ming_thread.id, "recent_attempts", json!({})).await;
        let rows: Value = serde_json::from_str(&out.content).unwrap();
        assert_eq!(rows.as_array().unwrap().len(), 2, "{rows}");
        assert_eq!(rows[0]["material"], "静夜思");
        assert_eq!(rows[0]["errors"][0]["expected"], "头");
        let patterns: Value = serde_json::from_str(
            &call(&app, &ming_thread.id, "error_patterns", json!({}))
                .await
                .content,
        )
        .unwrap();
        assert_eq!(patterns[0]["times"], 2);
        let due: Value = serde_json::from_str(
            &call(&app, &ming_thread.id, "due_reviews", json!({}))
                .await
                .content,
        )
        .unwrap();
        assert_eq!(due[0]["material"], "静夜思", "learnt 9 days ago: due");

        // 小红's thread asking for 小明 still reads 小红's (empty) history.
        let out = call(
            &app,
            &hong_thread.id,
            "recent_attempts",
            json!({"child": "小明"}),
        )
        .await;
        assert_eq!(out.content, "[]");
        // A parent says which child; with two children, asking is required.
        let out = call(&app, &mum_thread.id, "recent_attempts", json!({})).await;
        assert!(
            out.is_error && out.content.contains("小明") && out.content.contains("小红"),
            "{out:?}"
        );
        let out = call(
            &app,
            &mum_thread.id,
            "recent_attempts",
            json!({"child": "小明"}),
        )
        .await;
        assert_eq!(
            serde_json::from_str::<Value>(&out.content)
                .unwrap()
                .as_array()
                .unwrap()
                .len(),
            2
        );
    }

    #[tokio::test]
    async fn materials_are_found_and_a_recitation_checked_without_recording() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let thread = deskmate_agent::persist::create_thread(app.store(), None, "t").unwrap();
        let found: Value = serde_json::from_str(
            &call(&app, &thread.id, "find_materials", json!({"query": "李白"}))
                .await
                .content,
        )
        .unwrap();
        assert!(
            found
                .as_array()
                .unwrap()
                .iter()
                .any(|m| m["title"] == "静夜思"),
            "{found}"
        );
        let checked = call(
            &app,
            &thread.id,
            "recite_check",
            json!({"material": "静夜思", "transcript": SLIP}),
        )
        .await;
        let v: Value = serde_json::from_str(&checked.content).unwrap();
        assert_eq!(v["accuracy"], 95.0);
        assert_eq!(v["errors"][0]["said"], "偷");
        let bad = call(
            &app,
            &thread.id,
            "recite_check",
            json!({"material": "没有这首", "transcript": "x"}),
        )
        .await;
        assert!(bad.is_error && bad.content.contains("not found"), "{bad:?}");
    }
}
