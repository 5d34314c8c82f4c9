//! The playback queue on a real rodio/cpal output stream: ALSA's default
//! device is configured (ALSA_CONFIG_PATH) as a null sink, so no sound card
//! is needed. It runs in a process of its own
//! (`deskmate_testkit::process::alone`): the ALSA configuration is
//! process-wide. The null sink is not paced, so clips play faster than real
//! time; order and interruption are what is checked.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::Duration;

use deskmate_speech::audio::playback::{PlaybackEvent, PlaybackQueue, VoiceClip};

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

fn events_until(q: &PlaybackQueue, done: impl Fn(&[PlaybackEvent]) -> bool) -> Vec<PlaybackEvent> {
    let mut events = Vec::new();
    let deadline = std::time::Instant::now() + Duration::from_secs(60);
    while !done(&events) && std::time::Instant::now() < deadline {
        if let Some(e) = q.next_event(Duration::from_millis(100)) {
            events.push(e);
        }
    }
    events
}

#[test]
fn voices_play_in_order_one_at_a_time_and_stop_when_the_child_speaks() {
    // ALSA's configuration is process-wide: this test runs in a process of its own.
    if !deskmate_testkit::process::alone(
        module_path!(),
        "voices_play_in_order_one_at_a_time_and_stop_when_the_child_speaks",
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
    let mut q = PlaybackQueue::open_default().expect("the null ALSA device opens as the speaker");

    let ids: Vec<u64> = (0..3).map(|_| q.enqueue(tone(0.5)).unwrap()).collect();
    let events = events_until(&q, |e| {
        e.iter()
            .filter(|e| matches!(e, PlaybackEvent::Finished { .. }))
            .count()
            == 3
    });
    let expected: Vec<PlaybackEvent> = ids
        .iter()
        .flat_map(|&id| {
            [
                PlaybackEvent::Started { id },
                PlaybackEvent::Finished { id },
            ]
        })
        .collect();
    // Strictly alternating start/finish in queue order: never two voices at once.
    assert_eq!(events, expected);

    // A long voice, then two more; the child starts speaking during the first.
    let long = q.enqueue(tone(600.0)).unwrap();
    let after: Vec<u64> = (0..2).map(|_| q.enqueue(tone(0.5)).unwrap()).collect();
    let started = events_until(&q, |e| !e.is_empty());
    assert_eq!(started, vec![PlaybackEvent::Started { id: long }]);
    q.interrupt();
    let rest = events_until(&q, |e| e.len() == 3);
    assert_eq!(
        rest,
        vec![
            PlaybackEvent::Interrupted { id: long },
            PlaybackEvent::Dropped { id: after[0] },
            PlaybackEvent::Dropped { id: after[1] }
        ]
    );

    // After a scene change the queue is empty and new voices play again.
    q.clear();
    let next = q.enqueue(tone(0.2)).unwrap();
    let events = events_until(&q, |e| e.len() == 2);
    assert_eq!(
        events,
        vec![
            PlaybackEvent::Started { id: next },
            PlaybackEvent::Finished { id: next }
        ]
    );
}
