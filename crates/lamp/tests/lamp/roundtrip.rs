//! Every message's round trip between the driver and the simulator over a
//! real pseudo-terminal, plus the protocol rules checked frame by frame.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use crate::common;

use std::io::{Read, Write};

use serialport::SerialPort;
use std::time::{Duration, Instant};

use common::{next_notice, open, simulator, wait_for};
use deskmate_lamp::frame::{self, Envelope, FrameDecoder};
use deskmate_lamp::simulator::{simulated_info, FaultPlan, Simulator, SimulatorConfig};
use deskmate_lamp::{
    ArmPose, Button, Capability, Card, ConnectionState, DeviceEvent, Expression, Gesture, Lamp,
    LampConfig, LampError, LampNotice, Light, Message, NackError, PortSelector, ProjectorCommand,
};

#[test]
fn hello_returns_the_device_info_and_the_lamps_state_is_adopted() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = open(&sim);
    assert_eq!(lamp.device_info(), Some(simulated_info()));
    let state = lamp.state();
    assert_eq!(state.connection, ConnectionState::Connected);
    assert_eq!(state.port.as_deref(), Some(sim.link().to_str().unwrap()));
    assert_eq!(
        state.expression,
        Expression::Sleep,
        "power-on face adopted from the lamp"
    );
    assert_eq!(sim.stats().device.hellos, 1);
}

#[test]
fn set_light_reaches_the_lamp() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = open(&sim);
    let light = Light::new(40, 3000, 250).unwrap();
    lamp.set_light(light).unwrap();
    assert_eq!(sim.state().unwrap().light, light);
    assert_eq!(lamp.state().light, light);
}

#[test]
fn every_expression_reaches_the_lamp() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = open(&sim);
    for expression in Expression::ALL {
        lamp.show_expression(*expression).unwrap();
        assert_eq!(sim.state().unwrap().expression, *expression);
    }
    assert_eq!(
        sim.stats().device.commands_applied,
        Expression::ALL.len() as u64
    );
}

#[test]
fn every_gesture_moves_the_arm() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = open(&sim);
    for gesture in Gesture::ALL {
        // Slowest speed, so the arm is surely still moving when we look.
        lamp.gesture(*gesture, 1).unwrap();
        assert_eq!(
            sim.state().unwrap().arm,
            ArmPose::Moving {
                gesture: *gesture,
                speed: 1
            }
        );
        assert_eq!(
            lamp.state().arm,
            ArmPose::Moving {
                gesture: *gesture,
                speed: 1
            }
        );
    }
    assert_eq!(
        sim.stats().device.gestures_performed,
        Gesture::ALL.len() as u64
    );
    let err = lamp.gesture(Gesture::Wave, 0).unwrap_err();
    assert!(matches!(err, LampError::Invalid(_)), "{err}");
}

#[test]
fn projector_turns_on_shows_a_card_and_turns_off() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = open(&sim);
    lamp.projector(ProjectorCommand::On).unwrap();
    assert!(sim.state().unwrap().projector.on);
    let card = Card::new("静夜思", vec!["床前明月光，".into(), "疑是地上霜。".into()]).unwrap();
    lamp.show_card(card.clone()).unwrap();
    let shown = sim.state().unwrap().projector;
    assert!(shown.on);
    assert_eq!(shown.card, Some(card));
    lamp.projector(ProjectorCommand::Off).unwrap();
    assert_eq!(sim.state().unwrap().projector, Default::default());
}

#[test]
fn query_state_reports_what_the_lamp_shows() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = open(&sim);
    lamp.set_light(Light::new(75, 5000, 0).unwrap()).unwrap();
    lamp.show_expression(Expression::Thinking).unwrap();
    let reported = lamp.query_state().unwrap();
    assert_eq!(Some(reported.clone()), sim.state());
    assert_eq!(reported.light.brightness, 75);
    assert_eq!(reported.expression, Expression::Thinking);
}

#[test]
fn heartbeat_is_acknowledged() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = open(&sim);
    let before = sim.stats().device.heartbeats;
    lamp.ping().unwrap();
    assert_eq!(sim.stats().device.heartbeats, before + 1);
}

#[test]
fn idle_link_sends_heartbeats_by_itself() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let mut config = common::config(sim.link());
    config.heartbeat_interval = Duration::from_millis(30);
    let _lamp = Lamp::open(config).unwrap();
    wait_for("three automatic heartbeats", || {
        sim.stats().device.heartbeats >= 3
    });
}

#[test]
fn every_event_flows_to_subscribers_once() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = open(&sim);
    let rx = lamp.subscribe();
    let sent = [
        DeviceEvent::Button(Button::Start),
        DeviceEvent::Button(Button::Stop),
        DeviceEvent::Touch,
        DeviceEvent::Presence(true),
        DeviceEvent::Presence(false),
    ];
    for event in sent {
        sim.raise(event).unwrap();
        let got = next_notice(&rx, |n| match n {
            LampNotice::Event { event, .. } => Some(*event),
            _ => None,
        });
        assert_eq!(got, event);
    }
    wait_for("the lamp to hear every acknowledgement", || {
        sim.stats().device.events_acknowledged == 5
    });
    assert_eq!(lamp.stats().events, 5);
}

#[test]
fn command_for_a_missing_part_is_nacked() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = SimulatorConfig::new(dir.path().join("lamp0"));
    config
        .info
        .capabilities
        .retain(|c| *c != Capability::Projector);
    let sim = Simulator::start(config).unwrap();
    let lamp = open(&sim);
    let err = lamp.projector(ProjectorCommand::On).unwrap_err();
    match err {
        LampError::Rejected {
            command: "projector",
            error: NackError::Unsupported(why),
        } => {
            assert!(why.contains("projector"), "{why}")
        }
        other => panic!("expected a refusal, got {other}"),
    }
    assert!(
        !lamp.state().projector.on,
        "a refused command changes nothing"
    );
    assert_eq!(lamp.stats().nacks, 1);
    // The link is still fine afterwards.
    lamp.show_expression(Expression::Happy).unwrap();
}

#[test]
fn tools_and_verdicts_drive_the_lamp() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = open(&sim);
    assert_eq!(lamp.available_tools().len(), 4);
    let said = lamp
        .run_tool(
            "lamp_set_light",
            &serde_json::json!({"brightness": 30, "temperature_k": 2700}),
        )
        .unwrap();
    assert!(said.contains("30 %"), "{said}");
    assert_eq!(sim.state().unwrap().light.temperature_k, 2700);
    lamp.run_tool(
        "lamp_project",
        &serde_json::json!({"title": "Spring", "lines": ["a", "b"]}),
    )
    .unwrap();
    assert_eq!(
        sim.state().unwrap().projector.card.map(|c| c.lines.len()),
        Some(2)
    );
    let bad = lamp
        .run_tool("lamp_set_light", &serde_json::json!({"brightness": 300}))
        .unwrap_err();
    assert!(matches!(bad, LampError::ToolArguments { .. }), "{bad}");

    lamp.react_to_verdict(true).unwrap();
    let s = sim.state().unwrap();
    assert_eq!(s.expression, Expression::Happy);
    assert!(matches!(
        s.arm,
        ArmPose::Moving {
            gesture: Gesture::Celebrate,
            ..
        }
    ));
    lamp.react_to_verdict(false).unwrap();
    let s = sim.state().unwrap();
    assert_eq!(s.expression, Expression::Encourage);
    assert!(matches!(
        s.arm,
        ArmPose::Moving {
            gesture: Gesture::Nod,
            ..
        }
    ));
}

#[test]
fn opening_nothing_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let err = Lamp::open(common::config(&dir.path().join("absent")))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("absent") && err.contains("deskmate lamp simulate"),
        "{err}"
    );
    // No USB lamp is plugged into this machine, so discovery finds none.
    if deskmate_lamp::list_lamps()
        .map(|l| l.is_empty())
        .unwrap_or(true)
    {
        let err = Lamp::open(LampConfig::new(PortSelector::Auto)).unwrap_err();
        assert!(
            matches!(err, LampError::NoLampFound | LampError::Discovery(_)),
            "{err}"
        );
    }
}

#[test]
fn a_port_that_is_not_a_lamp_fails_the_handshake() {
    // A pty whose other side never answers: open succeeds, hello does not.
    let (_master, slave) = serialport::TTYPort::pair().unwrap();
    let path = slave.name().unwrap();
    let mut config = common::config(std::path::Path::new(&path));
    config.ack_timeout = Duration::from_millis(30);
    let err = Lamp::open(config).unwrap_err();
    assert!(matches!(err, LampError::Handshake { .. }), "{err}");
    assert!(err.to_string().contains("hello"), "{err}");
}

/// Speaks to the simulator frame by frame, bypassing the driver.
struct RawLine {
    port: Box<dyn serialport::SerialPort>,
    decoder: FrameDecoder,
    pending: std::collections::VecDeque<Envelope>,
}

impl RawLine {
    fn open(sim: &Simulator) -> Self {
        let port = serialport::new(sim.link().to_str().unwrap(), 115_200)
            .timeout(Duration::from_millis(20))
            .open()
            .unwrap();
        Self {
            port,
            decoder: FrameDecoder::new(),
            pending: Default::default(),
        }
    }

    fn send_bytes(&mut self, bytes: &[u8]) {
        self.port.write_all(bytes).unwrap();
    }

    fn send(&mut self, seq: u32, message: Message) {
        self.send_bytes(&frame::encode(seq, &message).unwrap());
    }

    /// The next good frame within a second, if any.
    fn receive(&mut self) -> Option<Envelope> {
        let deadline = Instant::now() + Duration::from_secs(1);
        let mut buf = [0u8; 256];
        while Instant::now() < deadline {
            if let Some(env) = self.pending.pop_front() {
                return Some(env);
            }
            if let Ok(n) = self.port.read(&mut buf) {
                self.pending
                    .extend(self.decoder.push(&buf[..n]).into_iter().flatten());
            }
        }
        self.pending.pop_front()
    }
}

#[test]
fn lamp_answers_frame_by_frame_as_the_protocol_says() {
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let mut line = RawLine::open(&sim);

    line.send(1, Message::ShowExpression(Expression::Sad));
    assert_eq!(
        line.receive().map(|e| e.message),
        Some(Message::Nack {
            seq: 1,
            error: NackError::NotReady
        })
    );

    line.send(
        2,
        Message::Hello {
            protocol: 2,
            host: "future".into(),
        },
    );
    assert_eq!(
        line.receive().map(|e| e.message),
        Some(Message::Nack {
            seq: 2,
            error: NackError::UnsupportedProtocol { supported: 1 }
        })
    );

    line.send(
        3,
        Message::Hello {
            protocol: 1,
            host: "raw".into(),
        },
    );
    assert!(matches!(
        line.receive().map(|e| e.message),
        Some(Message::DeviceInfo { reply_to: 3, .. })
    ));

    let too_bright = Light {
        brightness: 101,
        temperature_k: 4000,
        transition_ms: 0,
    };
    line.send(4, Message::SetLight(too_bright));
    match line.receive().map(|e| e.message) {
        Some(Message::Nack {
            seq: 4,
            error: NackError::OutOfRange(why),
        }) => assert!(why.contains("0–100"), "{why}"),
        other => panic!("expected an out-of-range nack, got {other:?}"),
    }

    // An intact frame with a message this version does not know.
    let mut raw = vec![1u8, 5, 0, 0, 0, 99];
    raw.extend(frame::CRC32.checksum(&raw).to_le_bytes());
    let mut bytes = vec![0];
    bytes.extend(cobs::encode_vec(&raw));
    bytes.push(0);
    line.send_bytes(&bytes);
    assert_eq!(
        line.receive().map(|e| e.message),
        Some(Message::Nack {
            seq: 5,
            error: NackError::Malformed
        })
    );

    // Noise, then a good frame: the lamp resynchronises and answers.
    line.send_bytes(&[0x13, 0x37, 0xFF, 0x42]);
    line.send(6, Message::ShowExpression(Expression::Surprised));
    assert_eq!(
        line.receive().map(|e| e.message),
        Some(Message::Ack { seq: 6 })
    );
    assert!(sim.stats().bad_frames >= 1);

    // The same seq again is acknowledged again but carried out once.
    line.send(
        7,
        Message::ArmGesture {
            gesture: Gesture::Point,
            speed: 50,
        },
    );
    assert_eq!(
        line.receive().map(|e| e.message),
        Some(Message::Ack { seq: 7 })
    );
    line.send(
        7,
        Message::ArmGesture {
            gesture: Gesture::Point,
            speed: 50,
        },
    );
    assert_eq!(
        line.receive().map(|e| e.message),
        Some(Message::Ack { seq: 7 })
    );
    assert_eq!(sim.stats().device.gestures_performed, 1);

    // An unacknowledged event is sent again with the same seq.
    sim.raise(DeviceEvent::Touch).unwrap();
    let first = line.receive().expect("event");
    assert_eq!(first.message, Message::Event(DeviceEvent::Touch));
    let again = line.receive().expect("event resent");
    assert_eq!(again, first);
    line.send(8, Message::Ack { seq: first.seq });
    wait_for("the event acknowledgement", || {
        sim.stats().device.events_acknowledged == 1
    });
}

/// Runs a future to completion on this thread (enough for one channel wait).
fn block_on<F: std::future::Future>(future: F) -> F::Output {
    struct Unpark(std::thread::Thread);
    impl std::task::Wake for Unpark {
        fn wake(self: std::sync::Arc<Self>) {
            self.0.unpark();
        }
    }
    let waker = std::task::Waker::from(std::sync::Arc::new(Unpark(std::thread::current())));
    let mut cx = std::task::Context::from_waker(&waker);
    let mut future = std::pin::pin!(future);
    loop {
        if let std::task::Poll::Ready(out) = future.as_mut().poll(&mut cx) {
            return out;
        }
        std::thread::park();
    }
}

#[test]
fn commands_can_be_awaited_and_the_handle_shared_across_threads() {
    fn shareable<T: Send + Sync>(_: &T) {}
    let dir = tempfile::tempdir().unwrap();
    let sim = simulator(dir.path(), FaultPlan::default());
    let lamp = std::sync::Arc::new(open(&sim));
    shareable(&*lamp);
    let ticket = lamp
        .submit(deskmate_lamp::Command::ShowExpression(
            Expression::Listening,
        ))
        .unwrap();
    assert_eq!(
        block_on(ticket.wait_async()).unwrap(),
        deskmate_lamp::Reply::Ack
    );
    assert_eq!(sim.state().unwrap().expression, Expression::Listening);
    let other = lamp.clone();
    let from_thread = std::thread::spawn(move || other.gesture(Gesture::Nod, 80))
        .join()
        .unwrap();
    from_thread.unwrap();
    let notices = lamp.subscribe();
    sim.raise(DeviceEvent::Touch).unwrap();
    let notice = block_on(notices.recv_async()).unwrap();
    assert!(
        matches!(
            notice,
            LampNotice::Event {
                event: DeviceEvent::Touch,
                ..
            }
        ),
        "{notice:?}"
    );
}
