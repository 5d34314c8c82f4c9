//! A re-ask costs little: the verdict names the unclear line, the child says
//! just that line (the ears listen for that line alone), and the take is
//! merged into the same attempt — no new attempt, no full re-recitation.

use super::*;

/// 静夜思 with line 2 heard as four unclear sounds: 80 %, not passed.
const LINE_2_UNCLEAR: &str = "床前明月光，七?八?九?十?霜。举头望明月，低头思故乡。";

fn verdict_with_line_2_unclear(f: &Fixture) -> (PracticeView, PracticeResult) {
    let p = f.scene.start(&f.child, &f.poem, Mode::Voice).unwrap();
    f.say(says(LINE_2_UNCLEAR));
    f.scene.record_start(&p.id).unwrap();
    let r = f.task_until_done().pop().unwrap().result.unwrap();
    assert!(!r.passed, "{r:?}");
    assert_eq!(r.lines_to_say_again, [2]);
    assert!(r.feedback.zh.contains("第二句"), "{}", r.feedback.zh);
    assert!(r.feedback.en.contains("line 2"), "{}", r.feedback.en);
    (p, r)
}

fn attempts_stored(f: &Fixture) -> i64 {
    f.store
        .with_conn(|c| Ok(c.query_row("SELECT count(*) FROM recite_attempts", [], |r| r.get(0))?))
        .unwrap()
}

#[test]
fn the_line_said_again_is_merged_into_the_same_attempt() {
    let f = fixture();
    let (p, before) = verdict_with_line_2_unclear(&f);
    f.say(says("疑是地上霜"));
    let task = f.scene.retake_start(&p.id, 2).unwrap();
    let seen = f.task_until_done();
    let statuses: Vec<_> = seen.iter().map(|t| t.status).collect();
    assert_eq!(
        statuses,
        [
            TaskStatus::Listening,
            TaskStatus::Queued,
            TaskStatus::Transcribing,
            TaskStatus::Checking,
            TaskStatus::Done
        ]
    );
    assert!(seen.iter().all(|t| t.task_id == task));
    let r = seen.last().unwrap().result.clone().unwrap();
    assert_eq!(r.attempt_id, before.attempt_id);
    assert_eq!(r.attempt_number, 1);
    assert!((r.accuracy, r.passed) == (100.0, true), "{r:?}");
    assert!(r.errors.is_empty());
    assert!(r.lines_to_say_again.is_empty());
    // The whole recitation stays what the child is shown as heard.
    assert_eq!(r.transcript, before.transcript);
    // The ears listened for the whole text, then for line 2 alone.
    let body = f.store.materials().get(&f.poem).unwrap().body;
    assert_eq!(
        *f.ears.listened_for.lock().unwrap(),
        [body, "疑是地上霜".to_string()]
    );
    assert_eq!(attempts_stored(&f), 1);
    let view = f.scene.current(&f.child).unwrap().unwrap();
    assert_eq!(
        view.state,
        PracticeState::Done {
            attempt_id: before.attempt_id.clone(),
            accuracy: 100.0
        }
    );
    assert_eq!(view.attempts, 1);
    let json = |r: &PracticeResult| serde_json::to_value(r).unwrap();
    assert_eq!(json(&view.last_result.unwrap()), json(&r));
    // Both verdicts were acted out and said.
    assert_eq!(
        *f.stage.verdicts.lock().unwrap(),
        [(f.poem.clone(), false), (f.poem.clone(), true)]
    );
}

#[test]
fn a_line_is_said_again_once_and_only_a_line_the_verdict_asks_for() {
    let f = fixture();
    let (p, before) = verdict_with_line_2_unclear(&f);
    // Line 1 was heard clearly: refused before the microphone opens.
    let e = f.scene.retake_start(&p.id, 1).unwrap_err();
    assert_eq!(e.code(), "practice.not_now");
    assert_eq!(f.ears.listened_for.lock().unwrap().len(), 1);

    // Nothing heard: the task fails with a code, the verdict is as it was,
    // and the line can still be said again.
    f.say(Said {
        text: None,
        until_stopped: false,
        device_lost: None,
    });
    f.scene.retake_start(&p.id, 2).unwrap();
    let last = f.task_until_done().pop().unwrap();
    assert_eq!(last.status, TaskStatus::Failed);
    assert_eq!(last.error.unwrap().code, "speech.nothing_heard");
    let view = f.scene.current(&f.child).unwrap().unwrap();
    assert_eq!(view.state.name(), "feedback");
    let json = |r: &PracticeResult| serde_json::to_value(r).unwrap();
    assert_eq!(json(view.last_result.as_ref().unwrap()), json(&before));

    // Unclear again: it stays a question, and is not asked a second time.
    f.say(says("七?八?九?十?霜"));
    f.scene.retake_start(&p.id, 2).unwrap();
    let r = f.task_until_done().pop().unwrap().result.unwrap();
    assert_eq!(r.attempt_id, before.attempt_id);
    assert_eq!(r.accuracy, before.accuracy);
    assert!(r.errors.iter().all(|e| e.uncertain));
    assert!(r.lines_to_say_again.is_empty());
    let e = f.scene.retake_start(&p.id, 2).unwrap_err();
    assert_eq!(e.code(), "practice.not_now");
    assert_eq!(attempts_stored(&f), 1);
    // The child can still retry the whole text.
    assert_eq!(f.scene.retry(&p.id).unwrap().state, PracticeState::Ready);
}
