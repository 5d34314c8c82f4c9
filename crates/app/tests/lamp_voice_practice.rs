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
//! feedback is spoken. One test in this binary: the ALSA configuration is
//! process-wide. Needs the speech models (scripts/fetch-models.sh) and the
//! dev clips; without them it fails with the fix in the message.

#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::{Duration, Instant};

use deskmate_app::lamp::PanelPress;
use deskmate_app::live_transcript::PartialSink;
use deskmate_app::practice::{TaskEvent, TaskSink, TaskStatus};
use deskmate_app::recite::Mode;
use deskmate_app::store::{MaterialFilter, NewProfile};
use deskmate_app::voice::{LevelSink, RecordingSinks};
use deskmate_app::voice_out::VoiceNotice;
use deskmate_app::{Config, Deskmate};
use deskmate_lamp::{Button, ConnectionState, DeviceEvent};
use deskmate_speech::audio::file;
use deskmate_speech::ModelPaths;

const POEM: &str = "床前明月光疑是地上霜举头望明月低头思故乡";

fn dev_clip(name: &str) -> PathBuf {
    let dir = std::env::var_os("DESKMATE_DEV_CLIPS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/recite-audio-dev")
        });
    let clip = dir.join(name);
    assert!(
        clip.is_file(),
        "dev clip missing: {} (set DESKMATE_DEV_CLIPS)",
        clip.display()
    );
    clip
}

/// Feeds `speech` (16 kHz mono) into the FIFO at speaking pace, over and
/// over, until `stop`. Once the microphone closes nobody reads the pipe, so
/// a write may block for good: the thread is left to end with the test.
fn feed(fifo: &std::path::Path, speech: Vec<f32>, stop: Arc<AtomicBool>) {
    // Read+write keeps a writer on the pipe without waiting for a reader.
    let mut pipe = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(fifo)
        .unwrap();
    let bytes: Vec<u8> = speech
        .iter()
        .flat_map(|s| ((s.clamp(-1.0, 1.0) * 32767.0) as i16).to_le_bytes())
        .collect();
    std::thread::spawn(move || {
        let chunk = 16_000 * 2 / 10; // 100 ms
        let started = Instant::now();
        let mut sent = 0usize;
        'outer: while !stop.load(Ordering::SeqCst) {
            for piece in bytes.chunks(chunk) {
                if stop.load(Ordering::SeqCst) {
                    break 'outer;
                }
                pipe.write_all(piece).unwrap();
                sent += piece.len();
                // Stay at real time: the VAD and the partials see speech as a child says it.
                let due = Duration::from_secs_f64(sent as f64 / (16_000.0 * 2.0));
                if let Some(wait) = due.checked_sub(started.elapsed()) {
                    std::thread::sleep(wait);
                }
            }
        }
    });
}

fn chars_in(heard: &str, expected: &str) -> usize {
    heard.chars().filter(|c| expected.contains(*c)).count()
}

#[test]
fn the_lamp_s_buttons_record_a_spoken_attempt_with_partials_and_spoken_feedback() {
    let models = ModelPaths::dev_dir();
    if let Err(e) = ModelPaths::present_in(&models) {
        panic!("{e} (looked in {})", models.display());
    }
    let clip = file::load(&dev_clip("静夜思-1.wav"), 60.0).unwrap();
    // Without the clip's silent ends, so looping it never sounds like the end of speech.
    let trim = 16_000 * 3 / 10;
    let speech = clip.samples[trim..clip.samples.len() - trim].to_vec();

    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("mic.fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success(),
        "mkfifo failed"
    );
    let stop_feeding = Arc::new(AtomicBool::new(false));
    feed(&fifo, speech, stop_feeding.clone());
    let conf = dir.path().join("asound.conf");
    std::fs::write(
        &conf,
        format!(
            r#"pcm.!default {{
    type asym
    playback.pcm {{ type null }}
    capture.pcm {{
        type plug
        slave.pcm {{ type file slave.pcm {{ type null }} file "/dev/null" infile "{}" format "raw" }}
        slave.format S16_LE
        slave.rate 16000
        slave.channels 1
    }}
}}
"#,
            fifo.display()
        ),
    )
    .unwrap();
    // SAFETY (edition 2021 set_var): this binary runs this single test, before any ALSA use.
    std::env::set_var("ALSA_CONFIG_PATH", &conf);

    let app = Deskmate::open(Config {
        data_dir: dir.path().join("data"),
        models_dir: models,
    })
    .unwrap();
    let (task_tx, tasks) = mpsc::channel::<TaskEvent>();
    let (partial_tx, partials) = mpsc::channel::<(String, String)>();
    let task_tx = Mutex::new(task_tx);
    let partial_tx = Mutex::new(partial_tx);
    let task_sink: TaskSink = Arc::new(move |e| {
        if let Ok(t) = task_tx.lock() {
            let _ = t.send(e);
        }
    });
    let partial_sink: PartialSink = Arc::new(move |p: &str, t: &str| {
        if let Ok(s) = partial_tx.lock() {
            let _ = s.send((p.to_string(), t.to_string()));
        }
    });
    let levels: LevelSink = Arc::new(|_: &str, _: f32| {});
    app.set_recording_sinks(RecordingSinks {
        levels,
        partials: partial_sink,
        tasks: task_sink,
    });
    app.spoken_feedback_enable().unwrap();
    let voice = app.voice_notices();

    app.lamp_host_simulator().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while app.lamp_state().map(|s| s.connection) != Some(ConnectionState::Connected) {
        assert!(
            Instant::now() < deadline,
            "the hosted simulator never connected"
        );
        std::thread::sleep(Duration::from_millis(20));
    }

    let child = app
        .store()
        .profiles()
        .add(NewProfile {
            name: "小明".into(),
            ..Default::default()
        })
        .unwrap();
    let poem = app
        .store()
        .materials()
        .list(&MaterialFilter {
            search: Some("静夜思".into()),
            ..Default::default()
        })
        .unwrap()
        .remove(0);
    let p = app
        .practice_start(&child.id, &poem.id, Mode::Voice)
        .unwrap();

    // *Start* on the panel: pressed on the simulator, back through the driver.
    assert_eq!(
        app.lamp_panel_press(DeviceEvent::Button(Button::Start))
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
    assert!(app.practice_is_recording(&p.id));

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
        app.practice_is_recording(&p.id),
        "the partial came while still listening"
    );

    // *Stop* on the panel ends the recording; the check runs under the same task id.
    assert_eq!(
        app.lamp_panel_press(DeviceEvent::Button(Button::Stop))
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
    assert!(!app.practice_is_recording(&p.id));
    assert!(
        chars_in(&result.transcript, POEM) >= 5,
        "heard {:?}",
        result.transcript
    );
    stop_feeding.store(true, Ordering::SeqCst);

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
