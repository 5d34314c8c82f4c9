//! The practice scene on a real SQLite store with a stage that records
//! attempts with the offline tip templates and keeps what it was told, and
//! scripted ears (the real microphone is tested in `deskmate-app` through a
//! FIFO microphone).

use std::collections::VecDeque;
use std::sync::mpsc;
use std::time::Duration;

use deskmate_recite::TemplateTips;
use deskmate_store::StoreError;
use deskmate_testkit::family::{add_jing_ye_si, child_with_jing_ye_si, JING_YE_SI};

use super::*;

/// The app's side, as the scene sees it: records with the templates, keeps
/// each verdict given and each quieting, forwards events to the test.
pub(crate) struct TestStage {
    store: Store,
    events: Mutex<mpsc::Sender<SceneEvent>>,
    verdicts: Mutex<Vec<(String, bool)>>,
    quieted: Mutex<Vec<&'static str>>,
}

impl Stage for TestStage {
    fn record_attempt(&self, attempt: NewAttempt) -> Result<AttemptOutcome, ReciteError> {
        deskmate_recite::practice::record_attempt(&self.store, attempt, &TemplateTips)
    }

    fn record_retake(&self, retake: RetakeAttempt) -> Result<AttemptOutcome, ReciteError> {
        deskmate_recite::retake::record_retake(&self.store, retake, &TemplateTips)
    }

    fn verdict_given(&self, material_id: &str, passed: bool, feedback: &FeedbackView) {
        assert!(!feedback.zh.is_empty() && !feedback.en.is_empty());
        self.verdicts
            .lock()
            .unwrap()
            .push((material_id.to_string(), passed));
    }

    fn child_about_to_speak(&self) {
        self.quieted.lock().unwrap().push("interrupt");
    }

    fn scene_changed(&self) {
        self.quieted.lock().unwrap().push("clear");
    }

    fn publish(&self, event: SceneEvent) {
        let _ = self.events.lock().unwrap().send(event);
    }
}

/// One scripted attempt: what the child says (or that the microphone went
/// away first), and whether the ears wait for the stop button.
#[derive(Clone)]
struct Said {
    text: Option<&'static str>,
    until_stopped: bool,
    device_lost: Option<&'static str>,
}

/// Ears that hear what the test scripts, report a level and a partial, and
/// transcribe to the scripted text (a `?` after a character: heard with low
/// confidence, as whisper marks a mishearing). Each material they were
/// asked to listen for is kept.
#[derive(Default)]
pub(crate) struct ScriptedEars {
    no_models: bool,
    script: Mutex<VecDeque<Said>>,
    listened_for: Mutex<Vec<String>>,
}

impl Ears for ScriptedEars {
    fn ready(&self) -> SceneResult<()> {
        if self.no_models {
            return Err(SceneError::ModelsNeeded(
                "models missing: whisper-base".into(),
            ));
        }
        Ok(())
    }

    fn listen(
        &self,
        material: &Material,
        release: &Release,
        report: ListeningSink,
    ) -> SceneResult<Listened> {
        self.listened_for
            .lock()
            .unwrap()
            .push(material.body.clone());
        let said = self
            .script
            .lock()
            .unwrap()
            .pop_front()
            .expect("a scripted attempt");
        report(Listening::Level(0.25));
        if let Some(text) = said.text {
            report(Listening::Partial(text.chars().take(5).collect()));
        }
        if said.until_stopped {
            let started = std::time::Instant::now();
            while !release.is_released() {
                assert!(started.elapsed() < Duration::from_secs(30), "never stopped");
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        Ok(Listened {
            speech: said.text.map(|t| Speech {
                samples: t.chars().map(|c| c as u32 as f32).collect(),
                duration_ms: 4000,
            }),
            device_lost: said.device_lost.map(str::to_string),
        })
    }

    fn transcribe(&self, _material: &Material, speech: Speech) -> SceneResult<Transcribed> {
        let text: String = speech
            .samples
            .iter()
            .filter_map(|s| char::from_u32(*s as u32))
            .collect();
        if text == "月亮" {
            return Err(SceneError::NotAnAttempt(
                deskmate_speech::attempt::NotAnAttempt::NotTheMaterial,
            ));
        }
        let mut chars = String::new();
        let mut confidences: Vec<f32> = Vec::new();
        for c in text.chars() {
            match (c, confidences.last_mut()) {
                ('?', Some(last)) => *last = 0.3,
                _ => {
                    chars.push(c);
                    confidences.push(0.99);
                }
            }
        }
        Ok(Transcribed {
            shown: chars.clone(),
            transcript: Transcript::with_confidences(chars, confidences),
        })
    }
}

pub(crate) struct Fixture {
    _dir: tempfile::TempDir,
    pub(crate) store: Store,
    pub(crate) scene: PracticeScene,
    stage: Arc<TestStage>,
    ears: Arc<ScriptedEars>,
    events: mpsc::Receiver<SceneEvent>,
    pub(crate) child: String,
    pub(crate) poem: String,
}

fn fixture_with(ears: ScriptedEars) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("deskmate.db")).unwrap();
    add_jing_ye_si(&store);
    let (child, poem) = child_with_jing_ye_si(&store);
    let (tx, events) = mpsc::channel();
    let stage = Arc::new(TestStage {
        store: store.clone(),
        events: Mutex::new(tx),
        verdicts: Mutex::default(),
        quieted: Mutex::default(),
    });
    let ears = Arc::new(ears);
    let scene = PracticeScene::new(store.clone(), stage.clone(), ears.clone());
    Fixture {
        _dir: dir,
        store,
        scene,
        stage,
        ears,
        events,
        child: child.id,
        poem: poem.id,
    }
}

pub(crate) fn fixture() -> Fixture {
    fixture_with(ScriptedEars::default())
}

impl Fixture {
    fn next(&self) -> SceneEvent {
        self.events.recv_timeout(Duration::from_secs(30)).unwrap()
    }

    /// Task events until the task ends (other events are skipped).
    fn task_until_done(&self) -> Vec<TaskEvent> {
        let mut seen = Vec::new();
        loop {
            if let SceneEvent::Task(t) = self.next() {
                let end = matches!(t.status, TaskStatus::Done | TaskStatus::Failed);
                seen.push(*t);
                if end {
                    return seen;
                }
            }
        }
    }

    fn say(&self, said: Said) {
        self.ears.script.lock().unwrap().push_back(said);
    }
}

fn says(text: &'static str) -> Said {
    Said {
        text: Some(text),
        until_stopped: false,
        device_lost: None,
    }
}

#[test]
fn omission_then_pass_then_review() {
    let f = fixture();
    let p = f.scene.start(&f.child, &f.poem, Mode::Text).unwrap();
    assert_eq!(p.state, PracticeState::Ready);
    assert!(!p.is_review);
    assert_eq!(f.scene.open_practice().as_deref(), Some(p.id.as_str()));

    let task = f
        .scene
        .submit_text(&p.id, "床前明月光，举头望明月，低头思故乡。".into())
        .unwrap();
    let seen = f.task_until_done();
    // The task is queued the moment its id is handed out, then checked.
    let statuses: Vec<_> = seen.iter().map(|t| t.status).collect();
    assert_eq!(
        statuses,
        [TaskStatus::Queued, TaskStatus::Checking, TaskStatus::Done]
    );
    assert!(seen
        .iter()
        .all(|t| t.task_id == task && t.practice_id == p.id));
    let r = seen.last().unwrap().result.clone().unwrap();
    assert!(!r.passed);
    assert_eq!(r.attempt_number, 1);
    let omission = r
        .errors
        .iter()
        .find(|e| e.error_type == deskmate_protocol::practice::ErrorType::Omission)
        .unwrap();
    assert_eq!(omission.line, 2);
    assert_eq!(*f.stage.verdicts.lock().unwrap(), [(f.poem.clone(), false)]);

    let view = f.scene.current(&f.child).unwrap().unwrap();
    assert_eq!(view.state.name(), "feedback");
    assert_eq!(
        view.last_result.as_ref().map(|r| r.attempt_id.clone()),
        Some(r.attempt_id.clone())
    );

    f.scene.retry(&p.id).unwrap();
    f.scene.submit_text(&p.id, JING_YE_SI.into()).unwrap();
    let r = f.task_until_done().pop().unwrap().result.unwrap();
    assert!(r.passed);
    assert_eq!(r.attempt_number, 2);
    // The pass scheduled the first review; the result says when.
    let next = chrono::DateTime::parse_from_rfc3339(r.next_review_at.as_deref().unwrap()).unwrap();
    let days = r.review_interval_days.unwrap();
    assert!(
        days >= 1 && next > Utc::now(),
        "next review {next} in {days} days"
    );
    let view = f.scene.current(&f.child).unwrap().unwrap();
    assert_eq!(view.state.name(), "done");
    assert_eq!(view.attempts, 2);

    // A new practice of a material with a review schedule is a review.
    assert!(
        f.scene
            .start(&f.child, &f.poem, Mode::Voice)
            .unwrap()
            .is_review
    );
}

#[test]
fn restart_while_listening_returns_to_ready() {
    let f = fixture();
    let p = f.scene.start(&f.child, &f.poem, Mode::Voice).unwrap();
    f.scene.step(&p.id, PracticeEvent::Listen).unwrap();
    // A new scene on the same store is a restarted app.
    let again = PracticeScene::new(f.store.clone(), f.stage.clone(), f.ears.clone());
    let view = again.current(&f.child).unwrap().unwrap();
    assert_eq!(view.id, p.id);
    assert_eq!(view.state, PracticeState::Ready);
    assert_eq!(again.open_practice().as_deref(), Some(p.id.as_str()));
}

/// Leaves the practice in `checking` under a task that died with the app.
fn crash_mid_check(f: &Fixture, practice_id: &str) {
    let mut row = rows::load(&f.store, practice_id).unwrap();
    transition(
        &mut row.practice,
        PracticeEvent::Submitted {
            task_id: "lost".into(),
        },
    )
    .unwrap();
    rows::save(&f.store, &row, false).unwrap();
}

#[test]
fn restart_mid_check_keeps_a_recorded_verdict() {
    let f = fixture();
    let p = f.scene.start(&f.child, &f.poem, Mode::Text).unwrap();
    // The crash came between recording the attempt and storing the verdict.
    crash_mid_check(&f, &p.id);
    f.stage
        .record_attempt(NewAttempt {
            profile_id: f.child.clone(),
            material_id: f.poem.clone(),
            transcript: Transcript::new(JING_YE_SI),
            mode: Mode::Text,
            at: Utc::now(),
            duration_ms: None,
            session_id: Some(p.id.clone()),
        })
        .unwrap();
    let again = PracticeScene::new(f.store.clone(), f.stage.clone(), f.ears.clone());
    let view = again.current(&f.child).unwrap().unwrap();
    assert_eq!(view.state.name(), "done");
    assert_eq!(view.attempts, 1);
}

#[test]
fn restart_mid_check_without_a_verdict_allows_a_retry() {
    let f = fixture();
    let p = f.scene.start(&f.child, &f.poem, Mode::Text).unwrap();
    crash_mid_check(&f, &p.id);
    let view = f.scene.current(&f.child).unwrap().unwrap();
    assert_eq!(view.state, PracticeState::Ready);
    assert_eq!(view.attempts, 0);
}

#[test]
fn bad_input_is_refused_plainly_with_a_code() {
    let f = fixture();
    let missing = f
        .scene
        .start(&f.child, "no-such-material", Mode::Text)
        .unwrap_err();
    assert_eq!(missing.code(), "not_found");
    let p = f.scene.start(&f.child, &f.poem, Mode::Text).unwrap();
    let early = f.scene.retry(&p.id).unwrap_err();
    assert_eq!(early.code(), "practice.not_now");
    assert!(early.to_string().contains("cannot retry"), "{early}");
    let stop = f.scene.record_stop(&p.id).unwrap_err();
    assert_eq!(stop.code(), "practice.not_now");
    // An empty submission is judged (0 %), not a crash.
    f.scene.submit_text(&p.id, String::new()).unwrap();
    let end = f.task_until_done().pop().unwrap();
    assert_eq!(end.result.map(|r| r.accuracy), Some(0.0), "{:?}", end.error);
    f.scene.leave(&p.id).unwrap();
    assert!(f.scene.current(&f.child).unwrap().is_none());
    assert_eq!(f.scene.open_practice(), None);
}

#[test]
fn a_damaged_stored_practice_is_named_not_guessed() {
    let f = fixture();
    let p = f.scene.start(&f.child, &f.poem, Mode::Text).unwrap();
    f.store
        .with_conn(|c| {
            c.execute(
                "UPDATE practice_sessions SET practice = '{\"state\": 7' WHERE id = ?1",
                [&p.id],
            )
            .map_err(StoreError::from)
        })
        .unwrap();
    let e = f.scene.current(&f.child).unwrap_err();
    assert_eq!(e.code(), "practice.damaged");
    assert!(e.to_string().contains("stored practice is damaged"), "{e}");
}

#[test]
fn a_spoken_attempt_reports_level_and_partial_then_is_checked_under_one_task() {
    let f = fixture();
    let p = f.scene.start(&f.child, &f.poem, Mode::Voice).unwrap();
    f.say(says(JING_YE_SI));
    let task = f.scene.record_start(&p.id).unwrap();
    let mut tasks = Vec::new();
    let mut heard = Vec::new();
    loop {
        match f.next() {
            SceneEvent::Task(t) => {
                let end = matches!(t.status, TaskStatus::Done | TaskStatus::Failed);
                tasks.push(*t);
                if end {
                    break;
                }
            }
            SceneEvent::Level(l) => heard.push(format!("level {}", l.level)),
            SceneEvent::Partial(t) => heard.push(format!("partial {}", t.text)),
        }
    }
    assert_eq!(heard, ["level 0.25", "partial 床前明月光"]);
    let statuses: Vec<_> = tasks.iter().map(|t| t.status).collect();
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
    assert!(tasks.iter().all(|t| t.task_id == task));
    let r = tasks.pop().unwrap().result.unwrap();
    assert!(r.passed, "{r:?}");
    assert_eq!(r.transcript, JING_YE_SI);
    // The voice stopped before the child spoke; the verdict was acted out.
    assert_eq!(*f.stage.quieted.lock().unwrap(), ["clear", "interrupt"]);
    assert_eq!(*f.stage.verdicts.lock().unwrap(), [(f.poem.clone(), true)]);
    assert!(!f.scene.is_recording(&p.id));
    let attempt = f
        .store
        .with_conn(|c| {
            Ok(c.query_row(
                "SELECT duration_ms FROM recite_attempts WHERE session_id = ?1",
                [&p.id],
                |r| r.get::<_, Option<i64>>(0),
            )?)
        })
        .unwrap();
    assert_eq!(attempt, Some(4000));
}

#[test]
fn the_lamps_buttons_start_and_stop_the_open_voice_practice() {
    use deskmate_lamp::{Button, DeviceEvent};
    let f = fixture();
    let start = DeviceEvent::Button(Button::Start);
    let stop = DeviceEvent::Button(Button::Stop);
    assert!(matches!(
        f.scene.lamp_event(&start),
        LampAction::Ignored { .. }
    ));
    let typed = f.scene.start(&f.child, &f.poem, Mode::Text).unwrap();
    assert_eq!(
        f.scene.lamp_event(&start),
        LampAction::Ignored {
            why: "a typed practice (默写) has no recording".into()
        }
    );
    f.scene.leave(&typed.id).unwrap();

    let p = f.scene.start(&f.child, &f.poem, Mode::Voice).unwrap();
    f.say(Said {
        until_stopped: true,
        ..says("床前明月光，疑是地上霜。")
    });
    let LampAction::RecordingStarted {
        practice_id,
        task_id,
    } = f.scene.lamp_event(&start)
    else {
        panic!("the start button did not record");
    };
    assert_eq!(practice_id, p.id);
    assert!(f.scene.is_recording(&p.id));
    assert_eq!(
        f.scene.lamp_event(&start),
        LampAction::Ignored {
            why: "already recording".into()
        }
    );
    assert_eq!(
        f.scene.lamp_event(&stop),
        LampAction::RecordingStopped {
            practice_id: p.id.clone(),
            task_id: task_id.clone()
        }
    );
    let r = f.task_until_done().pop().unwrap();
    assert_eq!(r.task_id, task_id);
    assert!(!r.result.unwrap().passed);

    // After a verdict that did not pass, the start button is the retry.
    f.say(says(JING_YE_SI));
    assert!(matches!(
        f.scene.lamp_event(&start),
        LampAction::RecordingStarted { .. }
    ));
    assert!(f.task_until_done().pop().unwrap().result.unwrap().passed);
    assert_eq!(
        f.scene.lamp_event(&stop),
        LampAction::Ignored {
            why: "not recording".into()
        }
    );
}

#[test]
fn a_failed_recording_says_why_with_a_code_and_records_nothing() {
    let f = fixture();
    let p = f.scene.start(&f.child, &f.poem, Mode::Voice).unwrap();
    let cases = [
        (
            Said {
                text: None,
                until_stopped: false,
                device_lost: None,
            },
            "speech.nothing_heard",
        ),
        (
            Said {
                text: None,
                until_stopped: false,
                device_lost: Some("USB microphone unplugged"),
            },
            "speech.microphone_lost",
        ),
        (says("月亮"), "speech.not_the_material"),
    ];
    for (said, code) in cases {
        f.say(said);
        f.scene.record_start(&p.id).unwrap();
        let end = f.task_until_done().pop().unwrap();
        assert_eq!(end.status, TaskStatus::Failed);
        let error = end.error.unwrap();
        assert_eq!(error.code, code, "{}", error.message);
        assert!(!error.message.is_empty());
        // Back to ready: the child simply tries again.
        let view = f.scene.current(&f.child).unwrap().unwrap();
        assert_eq!(view.state, PracticeState::Ready, "after {code}");
    }
    assert_eq!(
        f.scene.current(&f.child).unwrap().unwrap().attempts,
        0,
        "nothing was recorded"
    );
    assert!(f.stage.verdicts.lock().unwrap().is_empty());
}

#[test]
fn no_models_is_said_before_the_microphone_opens() {
    let f = fixture_with(ScriptedEars {
        no_models: true,
        ..Default::default()
    });
    let p = f.scene.start(&f.child, &f.poem, Mode::Voice).unwrap();
    let e = f.scene.record_start(&p.id).unwrap_err();
    assert_eq!(e.code(), "models.needed");
    assert!(!f.scene.is_recording(&p.id));
    assert_eq!(
        f.scene.current(&f.child).unwrap().unwrap().state,
        PracticeState::Ready
    );
}

mod retake;
