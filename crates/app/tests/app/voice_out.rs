//! Spoken feedback through a real rodio/cpal output stream and real
//! espeak-ng: ALSA's default device is configured (ALSA_CONFIG_PATH) as a
//! null sink, so no sound card is needed. A typed verdict's feedback is
//! synthesized, cached and played; a voice still speaking stops when the
//! child presses record, and is dropped when the child leaves the practice.
//! It runs in a process of its own (`deskmate_testkit::process::alone`):
//! the ALSA configuration is process-wide.
//! The null sink is not paced, so a long tone stands in for a long voice.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::mpsc;
use std::time::{Duration, Instant};

use deskmate_app::events::AppEvent;
use deskmate_app::recite::Mode;
use deskmate_app::voice_out::VoiceNotice;
use deskmate_app::{Config, Deskmate};
use deskmate_protocol::voice::PlaybackEvent;
use deskmate_protocol::{TaskEvent, TaskStatus};
use deskmate_speech::audio::playback::VoiceClip;
use deskmate_testkit::family::child_with_jing_ye_si;

fn tone(seconds: f32) -> VoiceClip {
    let rate = 16_000;
    let samples = (0..(rate as f32 * seconds) as usize)
        .map(|i| (i as f32 * 0.1).sin() * 0.3)
        .collect();
    VoiceClip {
        samples,
        sample_rate: rate,
    }
}

/// Notices until `done` says enough (or a minute passes).
fn notices_until(
    rx: &mpsc::Receiver<VoiceNotice>,
    done: impl Fn(&[VoiceNotice]) -> bool,
) -> Vec<VoiceNotice> {
    let mut seen = Vec::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !done(&seen) && Instant::now() < deadline {
        if let Ok(n) = rx.recv_timeout(Duration::from_millis(100)) {
            seen.push(n);
        }
    }
    seen
}

fn queued_id(n: &VoiceNotice, text: &str) -> Option<u64> {
    match n {
        VoiceNotice::Queued { id, text: t } if t == text => Some(*id),
        _ => None,
    }
}

fn has(seen: &[VoiceNotice], playback: PlaybackEvent) -> bool {
    seen.contains(&VoiceNotice::Playback { playback })
}

/// The app's task events and voice notices from now on, each on a channel.
fn streams(app: &Deskmate) -> (mpsc::Receiver<TaskEvent>, mpsc::Receiver<VoiceNotice>) {
    let (task_tx, tasks) = mpsc::channel();
    let (voice_tx, voice) = mpsc::channel();
    let events = app.events();
    std::thread::spawn(move || {
        for event in events.iter() {
            let _ = match event {
                AppEvent::Task(t) => task_tx.send(*t).map_err(|_| ()),
                AppEvent::Voice(v) => voice_tx.send(v).map_err(|_| ()),
                _ => Ok(()),
            };
        }
    });
    (tasks, voice)
}

#[test]
fn feedback_is_spoken_in_order_stops_for_the_child_and_is_dropped_on_leaving() {
    // ALSA's configuration is process-wide: this test runs in a process of its own.
    if !deskmate_testkit::process::alone(
        module_path!(),
        "feedback_is_spoken_in_order_stops_for_the_child_and_is_dropped_on_leaving",
    ) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("asound.conf");
    std::fs::write(
        &conf,
        "pcm.!default { type plug slave.pcm { type null } }\n",
    )
    .unwrap();
    // SAFETY (edition 2021 set_var): this process runs this single test (`alone`), before any ALSA use.
    std::env::set_var("ALSA_CONFIG_PATH", &conf);

    let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
    app.feedback_voice().enable().unwrap();
    let (tasks, notices) = streams(&app);
    let (child, poem) = child_with_jing_ye_si(app.store());

    // A typed verdict: its Chinese feedback is synthesized and played, start to finish.
    let p = app
        .practice()
        .start(&child.id, &poem.id, Mode::Text)
        .unwrap();
    app.practice()
        .submit_text(&p.id, "床前明月光，举头望明月，低头思故乡。".into())
        .unwrap();
    let result = loop {
        let e = tasks.recv_timeout(Duration::from_secs(60)).unwrap();
        if e.status == TaskStatus::Done {
            break e.result.unwrap();
        }
        assert_ne!(e.status, TaskStatus::Failed, "{e:?}");
    };
    assert!(!result.passed);
    let said = result.feedback.zh.clone();
    let seen = notices_until(&notices, |n| {
        n.iter()
            .find_map(|n| queued_id(n, &said))
            .is_some_and(|id| has(n, PlaybackEvent::Finished { id }))
    });
    let id = seen
        .iter()
        .find_map(|n| queued_id(n, &said))
        .unwrap_or_else(|| panic!("feedback never queued: {seen:?}"));
    let playback: Vec<&VoiceNotice> = seen
        .iter()
        .filter(|n| matches!(n, VoiceNotice::Playback { .. }))
        .collect();
    assert_eq!(
        playback,
        [
            &VoiceNotice::Playback {
                playback: PlaybackEvent::Started { id }
            },
            &VoiceNotice::Playback {
                playback: PlaybackEvent::Finished { id }
            }
        ],
        "{seen:?}"
    );
    let cached = std::fs::read_dir(dir.path().join("voice-cache"))
        .unwrap()
        .count();
    assert!(cached >= 1, "the synthesized phrase is cached");

    // A long voice and one after it; the child presses record during the first.
    app.practice().retry(&p.id).unwrap();
    app.feedback_voice().speak_clip("long", tone(600.0));
    app.feedback_voice().speak_clip("after", tone(0.5));
    let seen = notices_until(&notices, |n| {
        n.iter().any(|n| {
            matches!(
                n,
                VoiceNotice::Playback {
                    playback: PlaybackEvent::Started { .. }
                }
            )
        })
    });
    let long = seen.iter().find_map(|n| queued_id(n, "long")).unwrap();
    assert!(has(&seen, PlaybackEvent::Started { id: long }), "{seen:?}");
    // This data directory has no speech models, so the microphone does not
    // open — but the voice has stopped already: the child wants to speak.
    let err = app.practice().record_start(&p.id).unwrap_err().to_string();
    assert!(err.contains("speech models"), "{err}");
    let after = seen
        .iter()
        .find_map(|n| queued_id(n, "after"))
        .unwrap_or(long + 1);
    let seen = notices_until(&notices, |n| has(n, PlaybackEvent::Dropped { id: after }));
    assert!(
        has(&seen, PlaybackEvent::Interrupted { id: long }),
        "{seen:?}"
    );
    assert!(has(&seen, PlaybackEvent::Dropped { id: after }), "{seen:?}");

    // Leaving the practice (a scene change) drops what is still being said.
    app.feedback_voice().speak_clip("long again", tone(600.0));
    let seen = notices_until(&notices, |n| {
        n.iter().any(|n| {
            matches!(
                n,
                VoiceNotice::Playback {
                    playback: PlaybackEvent::Started { .. }
                }
            )
        })
    });
    let again = seen
        .iter()
        .find_map(|n| queued_id(n, "long again"))
        .unwrap();
    app.practice().leave(&p.id).unwrap();
    let seen = notices_until(&notices, |n| {
        has(n, PlaybackEvent::Interrupted { id: again })
    });
    assert!(
        has(&seen, PlaybackEvent::Interrupted { id: again }),
        "{seen:?}"
    );
}
