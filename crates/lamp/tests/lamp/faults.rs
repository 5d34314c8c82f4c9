//! Each simulator fault mode against the driver, over a real pseudo-terminal:
//! commands still land exactly once, or fail with a clear error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::Duration;

use common::{next_notice, open, simulator, wait_for};
use deskmate_lamp::simulator::{FaultPlan, Flap};
use deskmate_lamp::{
    Button, ConnectionState, DeviceEvent, Gesture, Lamp, LampError, LampNotice, Light,
};

fn wave_ten_times(lamp: &Lamp) {
    for _ in 0..10 {
        lamp.gesture(Gesture::Wave, 100)
            .expect("gesture survives the fault");
    }
}

#[test]
fn dropped_frames_are_retried_and_carried_out_once() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(
        dir.path(),
        FaultPlan {
            drop_every: Some(3),
            ..Default::default()
        },
    );
    let lamp = open(&sim);
    wave_ten_times(&lamp);
    assert!(sim.stats().frames_dropped >= 3, "{:?}", sim.stats());
    assert!(lamp.stats().retries >= 3, "{:?}", lamp.stats());
    assert_eq!(sim.stats().device.gestures_performed, 10);
}

#[test]
fn dropped_event_acks_do_not_duplicate_events() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(
        dir.path(),
        FaultPlan {
            drop_every: Some(2),
            ..Default::default()
        },
    );
    let lamp = open(&sim);
    let rx = lamp.subscribe();
    for _ in 0..6 {
        sim.raise(DeviceEvent::Button(Button::Start)).unwrap();
    }
    wait_for("every event acknowledged", || {
        sim.stats().device.events_acknowledged == 6
    });
    let events = rx
        .drain()
        .filter(|n| matches!(n, LampNotice::Event { .. }))
        .count();
    assert_eq!(events, 6, "each event reaches the app exactly once");
    assert!(sim.stats().device.event_retries >= 1, "{:?}", sim.stats());
    assert!(lamp.stats().duplicate_events >= 1, "{:?}", lamp.stats());
}

#[test]
fn garbled_answers_are_caught_by_the_crc_and_retried() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(
        dir.path(),
        FaultPlan {
            corrupt_every: Some(3),
            ..Default::default()
        },
    );
    let lamp = open(&sim);
    wave_ten_times(&lamp);
    let stats = lamp.stats();
    assert!(stats.bad_frames >= 3, "{stats:?}");
    assert!(stats.retries >= 3, "{stats:?}");
    assert!(
        sim.stats().device.duplicates >= 3,
        "retries of carried-out commands: {:?}",
        sim.stats()
    );
    assert_eq!(sim.stats().device.gestures_performed, 10);
}

#[test]
fn slow_answers_within_the_timeout_succeed() {
    let dir = tempfile::tempdir().unwrap();
    let delay = Duration::from_millis(80);
    let sim = simulator(
        dir.path(),
        FaultPlan {
            answer_delay: Some(delay),
            ..Default::default()
        },
    );
    let lamp = open(&sim);
    let rtt = lamp.ping().unwrap();
    assert!(rtt >= delay, "the answer was held back: {rtt:?}");
    lamp.set_light(Light::new(10, 2700, 0).unwrap()).unwrap();
    assert_eq!(sim.state().unwrap().light.brightness, 10);
    assert_eq!(lamp.stats().retries, 0);
}

#[test]
fn answers_slower_than_the_timeout_fail_after_the_retries() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let mut config = common::config(sim.link());
    config.ack_timeout = Duration::from_millis(30);
    config.attempts = 2;
    config.max_misses = 100;
    let lamp = Lamp::open(config).unwrap();
    sim.set_faults(FaultPlan {
        answer_delay: Some(Duration::from_millis(150)),
        ..Default::default()
    })
    .unwrap();
    let err = lamp
        .set_light(Light::new(55, 4000, 0).unwrap())
        .unwrap_err();
    match &err {
        LampError::Timeout {
            command: "set_light",
            tries: 2,
            ..
        } => {}
        other => panic!("expected a timeout after two tries, got {other}"),
    }
    assert!(
        err.to_string().contains("did not acknowledge set_light"),
        "{err}"
    );
    assert_eq!(
        lamp.state().light,
        deskmate_lamp::Light::POWER_ON,
        "an unacknowledged light is not recorded"
    );
}

#[test]
fn a_flapping_lamp_is_reconnected_and_restored_each_time() {
    let dir = tempfile::tempdir().unwrap();
    let flap = Flap {
        up: Duration::from_millis(400),
        down: Duration::from_millis(150),
    };
    let sim = simulator(
        dir.path(),
        FaultPlan {
            flap: Some(flap),
            ..Default::default()
        },
    );
    let lamp = open(&sim);
    let light = Light::new(64, 3500, 0).unwrap();
    lamp.set_light(light).unwrap();
    let rx = lamp.subscribe();
    let mut saw_fast_failure = false;
    for cycle in 0..2 {
        next_notice(&rx, |n| {
            matches!(
                n,
                LampNotice::Connection {
                    state: ConnectionState::Disconnected,
                    ..
                }
            )
            .then_some(())
        });
        match lamp.ping() {
            Err(LampError::Disconnected { .. }) => saw_fast_failure = true,
            Ok(_) => {} // already back: the down time is short
            Err(other) => panic!("cycle {cycle}: expected disconnected, got {other}"),
        }
        next_notice(&rx, |n| {
            matches!(
                n,
                LampNotice::Connection {
                    state: ConnectionState::Connected,
                    ..
                }
            )
            .then_some(())
        });
        wait_for("the light restored after replug", || {
            sim.state().is_some_and(|s| s.light == light)
        });
    }
    assert!(
        saw_fast_failure,
        "a command while unplugged fails as disconnected"
    );
    assert!(sim.stats().plugs >= 3);
    assert!(lamp.stats().connects >= 3);
}
