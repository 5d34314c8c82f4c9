//! Pulling the cable and plugging it back in, over a real pseudo-terminal:
//! the driver notices, fails commands at once, reconnects and restores.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::time::Duration;

use common::{next_notice, open, simulator, wait_for};
use deskmate_lamp::simulator::{FaultPlan, Simulator, SimulatorConfig};
use deskmate_lamp::{
    Button, Card, ConnectionState, DeviceEvent, Expression, Lamp, LampError, LampNotice, Light,
    ProjectorCommand,
};

fn connection(n: &LampNotice) -> Option<ConnectionState> {
    match n {
        LampNotice::Connection { state, .. } => Some(*state),
        _ => None,
    }
}

#[test]
fn unplug_fails_fast_and_replug_restores_light_face_and_card() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = open(&sim);
    let light = Light::new(42, 3100, 0).unwrap();
    let card = Card::new("鹅", vec!["鹅，鹅，鹅，".into(), "曲项向天歌。".into()]).unwrap();
    lamp.set_light(light).unwrap();
    lamp.show_expression(Expression::Listening).unwrap();
    lamp.show_card(card.clone()).unwrap();
    let rx = lamp.subscribe();
    let first_tty = sim.tty_path();

    sim.unplug().unwrap();
    assert!(!sim.link().exists(), "the device path vanishes");
    let state = next_notice(&rx, connection);
    assert_eq!(state, ConnectionState::Disconnected);
    assert_eq!(lamp.state().connection, ConnectionState::Disconnected);
    let err = lamp
        .set_light(Light::new(90, 6000, 0).unwrap())
        .unwrap_err();
    assert!(matches!(err, LampError::Disconnected { .. }), "{err}");
    assert!(err.to_string().contains("disconnected"), "{err}");
    assert!(
        lamp.available_tools().is_empty(),
        "no lamp tools while unplugged"
    );

    let tty = sim.replug().unwrap();
    assert_ne!(Some(tty), None::<String>);
    assert_eq!(
        sim.state().unwrap().light,
        Light::POWER_ON,
        "the lamp powered up afresh"
    );
    next_notice(&rx, |n| {
        (connection(n) == Some(ConnectionState::Connected)).then_some(())
    });
    wait_for("the state restored", || {
        sim.state().is_some_and(|s| {
            s.light == light
                && s.expression == Expression::Listening
                && s.projector.card.as_ref() == Some(&card)
        })
    });
    assert!(first_tty.is_some());
    assert_eq!(lamp.stats().connects, 2);
    assert_eq!(lamp.stats().disconnects, 1);

    // And it works as before.
    lamp.show_expression(Expression::Happy).unwrap();
    assert_eq!(sim.state().unwrap().expression, Expression::Happy);
    sim.raise(DeviceEvent::Button(Button::Stop)).unwrap();
    let event = next_notice(&rx, |n| match n {
        LampNotice::Event { event, .. } => Some(*event),
        _ => None,
    });
    assert_eq!(event, DeviceEvent::Button(Button::Stop));
}

#[test]
fn a_command_in_flight_when_the_cable_goes_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    // Answers held back long enough to pull the cable first.
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = open(&sim);
    sim.set_faults(FaultPlan {
        answer_delay: Some(Duration::from_millis(150)),
        ..Default::default()
    })
    .unwrap();
    let ticket = lamp
        .submit(deskmate_lamp::Command::Projector(ProjectorCommand::On))
        .unwrap();
    std::thread::sleep(Duration::from_millis(40));
    sim.unplug().unwrap();
    let err = ticket.wait().unwrap_err();
    assert!(
        matches!(
            err,
            LampError::LinkLost { .. } | LampError::Disconnected { .. }
        ),
        "{err}"
    );
}

#[test]
fn watch_connects_when_the_lamp_appears_later() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("lamp0");
    let lamp = Lamp::watch(common::config(&link)).unwrap();
    assert_eq!(lamp.state().connection, ConnectionState::Disconnected);
    assert!(matches!(lamp.ping(), Err(LampError::Disconnected { .. })));

    let sim = Simulator::start(SimulatorConfig::new(&link)).unwrap();
    wait_for("the driver to find the lamp", || lamp.is_connected());
    lamp.set_light(Light::new(20, 2700, 0).unwrap()).unwrap();
    assert_eq!(sim.state().unwrap().light.brightness, 20);
}

#[test]
fn a_hung_lamp_is_declared_lost_and_found_again() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let mut config = common::config(sim.link());
    config.ack_timeout = Duration::from_millis(20);
    config.heartbeat_interval = Duration::from_millis(20);
    let lamp = Lamp::open(config).unwrap();
    let rx = lamp.subscribe();
    // The lamp stops hearing anything, but the cable stays in.
    sim.set_faults(FaultPlan {
        drop_every: Some(1),
        ..Default::default()
    })
    .unwrap();
    next_notice(&rx, |n| {
        (connection(n) == Some(ConnectionState::Disconnected)).then_some(())
    });
    sim.set_faults(FaultPlan::default()).unwrap();
    next_notice(&rx, |n| {
        (connection(n) == Some(ConnectionState::Connected)).then_some(())
    });
    lamp.ping().unwrap();
}

#[test]
fn the_simulator_never_replaces_a_real_file() {
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("lamp0");
    std::fs::write(&link, b"keep me").unwrap();
    let err = Simulator::start(SimulatorConfig::new(&link))
        .err()
        .expect("refused");
    assert!(err.to_string().contains("not a symlink"), "{err}");
    assert_eq!(std::fs::read(&link).unwrap(), b"keep me");
}

#[test]
fn dropping_the_simulator_removes_its_link() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let link = sim.link().to_path_buf();
    assert!(link.exists());
    drop(sim);
    assert!(std::fs::symlink_metadata(&link).is_err());
}
