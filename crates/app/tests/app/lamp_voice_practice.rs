//! A spoken practice run from the lamp's buttons, with every part real: the
//! app hosts the lamp simulator on a pseudo-terminal, the virtual panel's
//! *start* and *stop* are pressed on it and come back through the driver;
//! the microphone is ALSA's default capture device reading a FIFO that this
//! test feeds with a dev clip at speaking pace (ALSA_CONFIG_PATH), the
//! speaker a null sink; whisper and the VAD are the fetched models.
//!
//! Checked: the task id exists when the microphone opens (`listening`) and
//! every later status of the attempt carries it, in order; a live partial
//! transcript arrives while the child is still speaking; the verdict's
//! feedback is spoken. It runs in a process of its own
//! (`deskmate_testkit::process::alone`): the ALSA configuration is
//! process-wide. Needs the speech models (scripts/fetch-models.sh) and the
//! dev clips; without them it fails with the fix in the message.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::mpsc;
use std::time::{Duration, Instant};

use deskmate_app::events::AppEvent;
use deskmate_app::lamp::PanelPress;
use deskmate_app::recite::Mode;
use deskmate_app::voice_out::VoiceNotice;
use deskmate_app::{Config, Deskmate};
use deskmate_lamp::{Button, ConnectionState, DeviceEvent};
use deskmate_protocol::{TaskEvent, TaskStatus};
use deskmate_speech::audio::file;
use deskmate_speech::ModelPaths;
use deskmate_testkit::clips::dev_clip;
use deskmate_testkit::family::child_with_jing_ye_si;
use deskmate_testkit::mic::FifoMic;

const POEM: &str = "床前明月光疑是地上霜举头望明月低头思故乡";

fn chars_in(heard: &str, expected: &str) -> usize {
    heard.chars().filter(|c| expected.contains(*c)).count()
}

#[test]
fn the_lamp_s_buttons_record_a_spoken_attempt_with_partials_and_spoken_feedback() {
    // ALSA's configuration is process-wide: this test runs in a process of its own.
    if !deskmate_testkit::process::alone(
        module_path!(),
        "the_lamp_s_buttons_record_a_spoken_attempt_with_partials_and_spoken_feedback",
    ) {
        return;
    }
    let models = ModelPaths::dev_dir();
    if let Err(e) = ModelPaths::present_in(&models) {
        panic!("{e} (looked in {})", models.display());
    }
    let clip = file::load(&dev_clip("静夜思-1.wav"), 60.0).unwrap();
    // Without the clip's silent ends, so looping it never sounds like the end of speech.
    let trim = 16_000 * 3 / 10;
    let speech = clip.samples[trim..clip.samples.len() - trim].to_vec();

    let dir = tempfile::tempdir().unwrap();
    let mic = FifoMic::new(dir.path());
    mic.feed_looping(&speech);
    // SAFETY (edition 2021 set_var): this process runs this single test (`alone`), before any ALSA use.
    std::env::set_var("ALSA_CONFIG_PATH", mic.alsa_config());

    let app = Deskmate::open(Config {
        data_dir: dir.path().join("data"),
        models_dir: models,
    })
    .unwrap();
    // The app's one event stream, sorted the way the window's listeners are.
    let (task_tx, tasks) = mpsc::channel::<TaskEvent>();
    let (partial_tx, partials) = mpsc::channel::<(String, String)>();
    let (voice_tx, voice) = mpsc::channel::<VoiceNotice>();
    let events = app.events();
    std::thread::spawn(move || {
        for event in events.iter() {
            let _ = match event {
                AppEvent::Task(t) => task_tx.send(*t).map_err(|_| ()),
                AppEvent::Partial(p) => partial_tx.send((p.practice_id, p.text)).map_err(|_| ()),
                AppEvent::Voice(v) => voice_tx.send(v).map_err(|_| ()),
                _ => Ok(()),
            };
        }
    });
    app.feedback_voice().enable().unwrap();

    app.lamp().host_simulator().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while app.lamp().state().map(|s| s.connection) != Some(ConnectionState::Connected) {
        assert!(
            Instant::now() < deadline,
            "the hosted simulator never connected"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    let (child, poem) = child_with_jing_ye_si(app.store());
    let p = app
        .practice()
        .start(&child.id, &poem.id, Mode::Voice)
        .unwrap();

    // *Start* on the panel: pressed on the simulator, back through the driver.
    assert_eq!(
        app.lamp()
            .panel_press(DeviceEvent::Button(Button::Start))
            .unwrap(),
        PanelPress::ThroughLamp
    );
    let opened = tasks
        .recv_timeout(Duration::from_secs(120))
        .expect("the lamp's start never opened the microphone");
    assert_eq!(
        (opened.practice_id.as_str(), opened.status),
        (p.id.as_str(), TaskStatus::Listening),
        "{opened:?}"
    );
    let task_id = opened.task_id.clone();
    assert!(!task_id.is_empty());
    assert!(app.practice().is_recording(&p.id));

    // While the child keeps reciting, a partial transcript of it arrives.
    let (for_practice, text) = partials
        .recv_timeout(Duration::from_secs(300))
        .expect("no partial transcript while speaking");
    assert_eq!(for_practice, p.id);
    assert!(
        chars_in(&text, POEM) >= 3,
        "partial {text:?} has little of the poem"
    );
    assert!(
        app.practice().is_recording(&p.id),
        "the partial came while still listening"
    );

    // *Stop* on the panel ends the recording; the check runs under the same task id.
    assert_eq!(
        app.lamp()
            .panel_press(DeviceEvent::Button(Button::Stop))
            .unwrap(),
        PanelPress::ThroughLamp
    );
    let mut statuses = Vec::new();
    let result = loop {
        let e = tasks
            .recv_timeout(Duration::from_secs(300))
            .unwrap_or_else(|_| panic!("no verdict; saw {statuses:?}"));
        assert_eq!(e.task_id, task_id, "{e:?}");
        statuses.push(e.status);
        match e.status {
            TaskStatus::Done => break e.result.unwrap(),
            TaskStatus::Failed => panic!("the attempt failed: {e:?}"),
            _ => {}
        }
    };
    assert_eq!(
        statuses,
        [
            TaskStatus::Queued,
            TaskStatus::Transcribing,
            TaskStatus::Checking,
            TaskStatus::Done
        ]
    );
    assert!(!app.practice().is_recording(&p.id));
    assert!(
        chars_in(&result.transcript, POEM) >= 5,
        "heard {:?}",
        result.transcript
    );
    mic.stop();

    // The verdict's feedback is spoken (the speaker is the null sink).
    let said = result.feedback.zh.clone();
    let deadline = Instant::now() + Duration::from_secs(60);
    let mut seen = Vec::new();
    while !seen
        .iter()
        .any(|n| matches!(n, VoiceNotice::Queued { text, .. } if *text == said))
    {
        assert!(
            Instant::now() < deadline,
            "feedback {said:?} never spoken: {seen:?}"
        );
        if let Ok(n) = voice.recv_timeout(Duration::from_millis(100)) {
            seen.push(n);
        }
    }
}
