//! The homework scene through the entry, with the scripted model server
//! answering as a vision model on loopback: the request carries the photo
//! as an image part, three questions with one wrong are walked hint first,
//! the answer shown only once a parent allows it, the mistake stored, in
//! the plan, redone from it; a reply out of shape stores nothing.

use std::sync::Arc;

use base64::Engine;
use chrono::{DateTime, TimeZone, Utc};
use deskmate_llm::scripted::{openai, ScriptedServer};
use deskmate_llm::{LlmClient, LlmConfig, ModelSpec};

use super::super::{Entry, Input, HOMEWORK_ANSWERS};
use crate::homework::mistakes;
use crate::homework::model::ModelChecker;
use crate::plan::TaskKind;
use crate::router::{Intent, Scene};
use crate::scene::tests::fixture;

fn at(hour: u32) -> DateTime<Utc> {
    Utc.with_ymd_and_hms(2026, 3, 2, hour, 0, 0).unwrap()
}

const SHEET: &str = r#"{"subject": "数学", "questions": [
 {"question": "12+5=", "child_answer": "17", "correct": true, "hint": "", "explanation": "", "correct_answer": "17"},
 {"question": "9+8=", "child_answer": "16", "correct": false, "hint": "9 再加几就凑成 10？", "explanation": "把 8 分成 1 和 7，9+1=10，10+7=17。", "correct_answer": "17"},
 {"question": "20-3=", "child_answer": "17", "correct": true, "hint": "", "explanation": "", "correct_answer": "17"}]}"#;

fn checker(server: &ScriptedServer) -> Arc<ModelChecker> {
    let mut config = LlmConfig::new(ModelSpec::parse("openai:gpt-4o-mini").unwrap());
    config.base_url = Some(server.base_url());
    Arc::new(ModelChecker::new(LlmClient::new(config).unwrap()))
}

fn photo(dir: &std::path::Path) -> (std::path::PathBuf, Vec<u8>) {
    let bytes = deskmate_testkit::photo::png(12, 8);
    let path = dir.join("worksheet.png");
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

fn count(store: &deskmate_store::Store, table: &str) -> i64 {
    store
        .with_conn(|c| Ok(c.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))?))
        .unwrap()
}

#[test]
fn a_worksheet_is_checked_by_the_vision_model_walked_hint_first_stored_and_redone_from_the_plan() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let (path, bytes) = photo(dir.path());
    let server = ScriptedServer::start(vec![
        openai::text(&format!("检查好了：\n```json\n{SHEET}\n```")),
        openai::text(r#"{"correct": false}"#),
    ])
    .unwrap();
    let entry = Entry::new(f.store.clone(), f.scene.clone()).with_checker(checker(&server));
    let r = entry
        .process(
            &f.child,
            Input::Photos {
                photos: vec![path],
                text: "帮我检查作业".into(),
            },
            at(2),
            true,
        )
        .unwrap();
    assert!(r.error.is_none(), "{:?}", r.error);
    assert_eq!((r.scene, r.intent), (Scene::Homework, Intent::Homework));
    // The request: the configured model, the photo as an image part.
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let body = &requests[0].body;
    assert_eq!(body["model"], "gpt-4o-mini");
    let parts = body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_array()
        .unwrap()
        .clone();
    let image = parts.iter().find(|p| p["type"] == "image_url").unwrap();
    let url = image["image_url"]["url"].as_str().unwrap();
    let b64 = url.strip_prefix("data:image/png;base64,").expect(url);
    assert_eq!(
        base64::engine::general_purpose::STANDARD
            .decode(b64)
            .unwrap(),
        bytes
    );
    assert!(parts.iter().any(|p| p["type"] == "text"));
    // The trace has the model call, timed, under the request.
    let spans = entry.trace(&r.trace_id).unwrap().spans;
    let call = spans.iter().find(|s| s.name == "model.call").unwrap();
    assert_eq!(call.attributes["model"], "openai:gpt-4o-mini");
    assert_eq!(call.attributes["purpose"], "check");
    assert_eq!(call.outcome, crate::trace::Outcome::Ok);
    assert_eq!(call.parent_span_id.as_ref(), Some(&spans[0].span_id));
    assert!(
        spans.iter().any(|s| s.name == "scene.homework"),
        "{spans:#?}"
    );
    // Three questions, one wrong: its hint first, no explanation, no answer.
    let card = r.homework.clone().unwrap();
    assert_eq!((card.total, card.correct, card.mistakes), (3, 2, 1));
    assert_eq!(card.step, "mistake");
    assert_eq!(card.question.as_deref(), Some("9+8="));
    assert!(card.explanation.is_none() && card.correct_answer.is_none());
    assert!(
        r.text_zh.contains("再想想") && r.text_zh.contains("凑成 10"),
        "{}",
        r.text_zh
    );
    assert!(
        !r.text_zh.contains("17"),
        "no answer in the hint: {}",
        r.text_zh
    );
    // Stored: one mistake for the child, and the walk.
    let open = mistakes::to_redo(&f.store, &f.child).unwrap();
    assert_eq!(open.len(), 1);
    assert_eq!(
        (
            open[0].question.as_str(),
            open[0].child_answer.as_str(),
            open[0].subject.as_str()
        ),
        ("9+8=", "16", "数学")
    );

    // 再给个提示: the router's fast path, then the explanation, still no answer.
    let r = entry
        .process(&f.child, "再给个提示".into(), at(2), true)
        .unwrap();
    assert_eq!(
        (r.scene, r.intent),
        (Scene::Homework, Intent::ContinueCurrent)
    );
    let card = r.homework.unwrap();
    assert!(card.explanation.is_some() && card.correct_answer.is_none());
    assert!(r.text_zh.contains("一步一步"), "{}", r.text_zh);
    // More help without a parent's permission: no answer, said why.
    let r = entry
        .process(&f.child, "告诉我答案".into(), at(2), true)
        .unwrap();
    assert!(r.homework.unwrap().correct_answer.is_none());
    assert!(r.text_zh.contains("家长同意"), "{}", r.text_zh);
    assert!(!r.text_zh.contains("17"), "{}", r.text_zh);
    // A parent allows answers for this child: now it is shown.
    f.store
        .settings()
        .set(Some(&f.child), HOMEWORK_ANSWERS, &true)
        .unwrap();
    let r = entry
        .process(&f.child, "告诉我答案".into(), at(2), true)
        .unwrap();
    let card = r.homework.unwrap();
    assert_eq!(card.correct_answer.as_deref(), Some("17"));
    assert!(card.answers_allowed);
    // 我懂了: the last mistake, so the summary.
    let r = entry
        .process(&f.child, "我懂了".into(), at(2), true)
        .unwrap();
    assert_eq!(r.homework.unwrap().step, "summary");
    assert!(
        r.text_zh.contains("一共 3 题") && r.text_zh.contains("错了 1 题"),
        "{}",
        r.text_zh
    );
    assert_eq!(server.request_count(), 1, "the walk itself asks no model");

    // The plan lists the mistake to redo; 下一个 reaches it.
    let r = entry
        .process(&f.child, "今天做什么".into(), at(3), true)
        .unwrap();
    assert_eq!(r.scene, Scene::Plan);
    let plan = r.plan.unwrap();
    let redo = plan
        .tasks
        .iter()
        .find(|t| t.kind == TaskKind::HomeworkRedo)
        .unwrap();
    assert!(
        !redo.done && redo.text_zh.contains("重做 1 道"),
        "{}",
        redo.text_zh
    );
    assert!(r.text_zh.contains("重做 1 道作业错题"), "{}", r.text_zh);
    // Nothing else is planned for this child: 下一个 goes to the redo, into
    // the homework scene.
    assert_eq!((plan.done, plan.total), (0, 1));
    let r = entry
        .process(&f.child, "下一个".into(), at(3), true)
        .unwrap();
    assert_eq!(r.scene, Scene::Homework, "{}", r.text_zh);
    assert_eq!(r.homework.as_ref().unwrap().step, "redo");
    assert!(r.text_zh.contains("9+8="), "{}", r.text_zh);
    // A wrong answer: the model judges it (false), the hint follows.
    let r = entry.process(&f.child, "15".into(), at(3), true).unwrap();
    assert!(
        r.text_zh.contains("还不对") && r.text_zh.contains("凑成 10"),
        "{}",
        r.text_zh
    );
    assert_eq!(server.request_count(), 2);
    assert_eq!(mistakes::to_redo(&f.store, &f.child).unwrap().len(), 1);
    // The right answer matches the stored one: redone, gone from the plan's count.
    let r = entry.process(&f.child, "17".into(), at(3), true).unwrap();
    assert!(r.text_zh.contains("对了"), "{}", r.text_zh);
    assert!(mistakes::to_redo(&f.store, &f.child).unwrap().is_empty());
    let r = entry
        .process(&f.child, "今天做什么".into(), at(3), true)
        .unwrap();
    let redo = r
        .plan
        .unwrap()
        .tasks
        .into_iter()
        .find(|t| t.kind == TaskKind::HomeworkRedo)
        .unwrap();
    assert!(redo.done, "{redo:?}");
    assert_eq!((redo.count, redo.target), (Some(1), Some(1)));
    // The walk is the day's: the next local day starts afresh.
    let shanghai = chrono_tz::Asia::Shanghai;
    assert_ne!(
        entry.load_walk(&f.child, shanghai, at(3)).unwrap(),
        crate::homework::Walk::default()
    );
    assert_eq!(
        entry
            .load_walk(&f.child, shanghai, at(3) + chrono::Duration::days(1))
            .unwrap(),
        crate::homework::Walk::default()
    );
}

#[test]
fn a_reply_out_of_shape_is_a_coded_error_and_nothing_is_stored() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = photo(dir.path());
    let server = ScriptedServer::start(vec![
        openai::text("这份作业写得很工整，第二题好像错了。"),
        openai::text(&SHEET.replace("\"correct\": false", "\"correct\": \"no\"")),
    ])
    .unwrap();
    let entry = Entry::new(f.store.clone(), f.scene.clone()).with_checker(checker(&server));
    for _ in 0..2 {
        let r = entry
            .process(
                &f.child,
                Input::Photos {
                    photos: vec![path.clone()],
                    text: String::new(),
                },
                at(2),
                true,
            )
            .unwrap();
        let e = r.error.unwrap();
        assert_eq!(e.code, "homework.model_reply", "{}", e.message);
        assert!(r.text_zh.contains("拍清楚"), "{}", r.text_zh);
        assert!(r.homework.is_none());
    }
    // A model that refuses the call (a wrong key): its code, nothing stored.
    let refusing = ScriptedServer::start(vec![deskmate_llm::scripted::status(
        401,
        None,
        r#"{"error": {"message": "invalid api key"}}"#,
    )])
    .unwrap();
    let r = Entry::new(f.store.clone(), f.scene.clone())
        .with_checker(checker(&refusing))
        .process(
            &f.child,
            Input::Photos {
                photos: vec![path.clone()],
                text: String::new(),
            },
            at(2),
            true,
        )
        .unwrap();
    let e = r.error.unwrap();
    assert_eq!(e.code, "homework.model_failed", "{}", e.message);
    assert_eq!(e.params["llm_code"], "auth");
    assert!(r.text_zh.contains("家长"), "{}", r.text_zh);
    for table in [
        "homework_mistakes",
        "homework_walks",
        "scene_decisions",
        "scene_sessions",
    ] {
        assert_eq!(count(&f.store, table), 0, "{table}");
    }
    // The entry goes on working.
    let r = entry
        .process(&f.child, "我要背静夜思".into(), at(2), true)
        .unwrap();
    assert!(r.error.is_none());
    assert_eq!(r.scene, Scene::Recite);
}

#[test]
fn photos_that_are_no_photos_are_refused_and_without_a_model_a_parent_is_asked() {
    let f = fixture();
    let dir = tempfile::tempdir().unwrap();
    let text = dir.path().join("sheet.png");
    std::fs::write(&text, "9+8=16").unwrap();
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    let r = entry
        .process(
            &f.child,
            Input::Photos {
                photos: vec![text, dir.path().join("gone.jpg")],
                text: String::new(),
            },
            at(2),
            false,
        )
        .unwrap();
    assert_eq!(r.error.unwrap().code, "homework.not_an_image");
    assert!(r.text_zh.contains("不是照片"), "{}", r.text_zh);
    assert_eq!(count(&f.store, "scene_decisions"), 0);
    // A real photo, no model set up: homework, and who can set one up.
    let (path, _) = photo(dir.path());
    let r = entry
        .process(
            &f.child,
            Input::Photos {
                photos: vec![path],
                text: String::new(),
            },
            at(2),
            false,
        )
        .unwrap();
    assert!(r.error.is_none());
    assert_eq!(r.scene, Scene::Homework);
    assert!(r.needs_model && r.text_zh.contains("家长"), "{}", r.text_zh);
    assert_eq!(count(&f.store, "homework_mistakes"), 0);
    // A parent's chat context with the homework tutor's sentence allows
    // answers too; other words do not.
    let context = |prompt: &str| {
        f.store
            .settings()
            .set(
                Some(&f.child),
                "chat.context",
                &serde_json::json!({"system_prompt": prompt}),
            )
            .unwrap();
    };
    context("孩子说妈妈同意了就给答案");
    assert!(!entry.answers_allowed(&f.child));
    context("这个孩子三年级。家长已允许给出答案。");
    assert!(entry.answers_allowed(&f.child));
    // The logged photo replays as it was decided.
    let replayed = entry.replay(Some(&f.child)).unwrap();
    assert_eq!(replayed.len(), 1);
    assert!(!replayed[0].changed, "{replayed:?}");
    assert!(
        replayed[0].input.starts_with("[photo ×1]"),
        "{}",
        replayed[0].input
    );
}

#[test]
fn a_damaged_mistake_is_named_by_get_and_left_out_of_the_redo_list() {
    let f = fixture();
    let sheet: crate::homework::Worksheet = serde_json::from_str(SHEET).unwrap();
    let sheet = crate::homework::Worksheet {
        questions: vec![sheet.questions[1].clone(), sheet.questions[1].clone()],
        ..sheet
    };
    let ids = mistakes::record(&f.store, &f.child, &sheet, at(2)).unwrap();
    assert_eq!(ids.len(), 2);
    f.store
        .with_conn(|c| {
            c.execute(
                "UPDATE homework_mistakes SET correct_answer = ' ' WHERE id = ?1",
                [&ids[0]],
            )?;
            Ok(())
        })
        .unwrap();
    let left = mistakes::to_redo(&f.store, &f.child).unwrap();
    assert_eq!(
        left.iter().map(|m| m.id.clone()).collect::<Vec<_>>(),
        vec![ids[1].clone()]
    );
    let e = mistakes::get(&f.store, &f.child, &ids[0]).unwrap_err();
    assert_eq!(e.code(), "practice.damaged");
    assert!(e.to_string().contains(&ids[0]), "{e}");
    // Another child's mistake is not this child's.
    assert_eq!(
        mistakes::get(&f.store, "someone-else", &ids[1])
            .unwrap_err()
            .code(),
        "not_found"
    );
    mistakes::mark_redone(&f.store, &f.child, &ids[1], at(3)).unwrap();
    assert_eq!(
        mistakes::mark_redone(&f.store, &f.child, &ids[1], at(3))
            .unwrap_err()
            .code(),
        "not_found",
        "redone once"
    );
}

#[test]
fn offline_two_mistakes_are_redone_one_after_the_other_by_the_stored_answer() {
    let f = fixture();
    let sheet: crate::homework::Worksheet = serde_json::from_str(SHEET).unwrap();
    let mut second = sheet.questions[1].clone();
    second.question = "30-4=".into();
    second.correct_answer = "26".into();
    let sheet = crate::homework::Worksheet {
        questions: vec![sheet.questions[1].clone(), second],
        ..sheet
    };
    mistakes::record(&f.store, &f.child, &sheet, at(1)).unwrap();
    // No model at all: answers are matched against the stored ones.
    let entry = Entry::new(f.store.clone(), f.scene.clone());
    entry
        .process(&f.child, "今天做什么".into(), at(2), false)
        .unwrap();
    let r = entry
        .process(&f.child, "下一个".into(), at(2), false)
        .unwrap();
    assert_eq!(r.scene, Scene::Homework);
    assert!(r.text_zh.contains("9+8="), "{}", r.text_zh);
    let r = entry.process(&f.child, "16".into(), at(2), false).unwrap();
    assert!(r.text_zh.contains("还不对"), "{}", r.text_zh);
    let r = entry.process(&f.child, "17".into(), at(2), false).unwrap();
    assert!(r.text_zh.contains("还有 1 道"), "{}", r.text_zh);
    let r = entry
        .process(&f.child, "下一题".into(), at(2), false)
        .unwrap();
    assert_eq!(r.homework.as_ref().unwrap().step, "redo");
    assert!(r.text_zh.contains("30-4="), "{}", r.text_zh);
    let r = entry.process(&f.child, "26".into(), at(2), false).unwrap();
    assert!(r.text_zh.contains("都改好了"), "{}", r.text_zh);
    assert!(mistakes::to_redo(&f.store, &f.child).unwrap().is_empty());
    // Back in the plan, its homework task is done: 2 redone today.
    let r = entry
        .process(&f.child, "今天做什么".into(), at(2), false)
        .unwrap();
    let task = r
        .plan
        .unwrap()
        .tasks
        .into_iter()
        .find(|t| t.kind == TaskKind::HomeworkRedo)
        .unwrap();
    assert!(task.done && task.count == Some(2), "{task:?}");
    // 不做了 leaves homework for chat.
    entry
        .process(&f.child, "下一个".into(), at(2), false)
        .unwrap();
    let r = entry
        .process(&f.child, "不做了".into(), at(2), false)
        .unwrap();
    assert_eq!(r.scene, Scene::Chat);
}
