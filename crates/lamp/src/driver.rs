//! The lamp driver's public face: [`Lamp`], a handle whose methods hand
//! commands to the link thread (see [`crate::link`]) and wait for the lamp's
//! acknowledgement, plus a stream of [`LampNotice`]s for the app.
//!
//! Blocking methods (`set_light`, …) suit threads and `spawn_blocking`;
//! [`Lamp::submit`] returns at once with a [`CommandTicket`] whose
//! [`CommandTicket::wait_async`] suits async code without blocking an executor.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::discovery::{self, PortSelector};
use crate::error::{LampError, LampResult};
use crate::link::{Inbox, Link};
use crate::protocol::{
    check_speed, Card, DeviceInfo, DeviceState, Expression, Gesture, Light, ProjectorCommand,
};
use crate::state::{ConnectionState, LampNotice, LampState, TrackedState};

/// How the driver finds and talks to its lamp.
#[derive(Debug, Clone)]
pub struct LampConfig {
    pub port: PortSelector,
    /// How long to wait for each acknowledgement.
    pub ack_timeout: Duration,
    /// How many times a command is sent before it fails (1 = no retries).
    pub attempts: u32,
    /// How often an idle link is checked with a heartbeat.
    pub heartbeat_interval: Duration,
    /// After this many unanswered heartbeats or commands in a row the link
    /// is declared lost and re-established.
    pub max_misses: u32,
    /// How often a disconnected driver looks for its lamp again (USB
    /// discovery is never done more often than every 500 ms).
    pub reconnect_interval: Duration,
    /// How the host introduces itself in the hello.
    pub host: String,
}

impl LampConfig {
    pub fn new(port: PortSelector) -> Self {
        Self {
            port,
            ack_timeout: Duration::from_millis(200),
            attempts: 3,
            heartbeat_interval: Duration::from_secs(1),
            max_misses: 3,
            reconnect_interval: Duration::from_millis(50),
            host: format!("deskmate {}", env!("CARGO_PKG_VERSION")),
        }
    }
}

/// A command the app can send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    SetLight(Light),
    ShowExpression(Expression),
    Gesture {
        gesture: Gesture,
        speed: u8,
    },
    Projector(ProjectorCommand),
    QueryState,
    /// A heartbeat the caller asked for: measures a round trip.
    Ping,
}

impl Command {
    /// Checks arguments before anything goes on the line.
    pub fn check(&self) -> LampResult<()> {
        let result = match self {
            Command::SetLight(light) => light.check(),
            Command::Gesture { speed, .. } => check_speed(*speed),
            Command::Projector(ProjectorCommand::ShowCard(card)) => card.check(),
            _ => Ok(()),
        };
        result.map_err(LampError::Invalid)
    }
}

/// What the lamp answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reply {
    Ack,
    DeviceInfo(DeviceInfo),
    State(DeviceState),
}

/// Counters for the link, for diagnostics and benchmarks.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkStats {
    pub frames_sent: u64,
    pub frames_received: u64,
    pub retries: u64,
    pub timeouts: u64,
    pub bad_frames: u64,
    pub nacks: u64,
    pub connects: u64,
    pub disconnects: u64,
    pub events: u64,
    pub duplicate_events: u64,
}

/// State shared between the handle and the link thread.
#[derive(Debug)]
pub(crate) struct Shared {
    state: Mutex<TrackedState>,
    subscribers: Mutex<Vec<flume::Sender<LampNotice>>>,
    stats: Mutex<LinkStats>,
}

/// How many notices a slow subscriber may fall behind before it misses some.
const SUBSCRIBER_BACKLOG: usize = 1024;

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Shared {
    fn new() -> Self {
        Self {
            state: Mutex::new(TrackedState::new()),
            subscribers: Mutex::new(Vec::new()),
            stats: Mutex::new(LinkStats::default()),
        }
    }

    pub fn state(&self) -> MutexGuard<'_, TrackedState> {
        lock(&self.state)
    }

    pub fn stats(&self) -> MutexGuard<'_, LinkStats> {
        lock(&self.stats)
    }

    /// Sends `notice` to every subscriber, forgetting those that hung up.
    pub fn publish(&self, notice: &LampNotice) {
        lock(&self.subscribers).retain(|tx| match tx.try_send(notice.clone()) {
            Ok(()) => true,
            Err(flume::TrySendError::Full(_)) => {
                tracing::warn!(
                    "a lamp subscriber is {SUBSCRIBER_BACKLOG} notices behind; dropping one"
                );
                true
            }
            Err(flume::TrySendError::Disconnected(_)) => false,
        });
    }
}

/// A command on its way; wait for the lamp's answer with [`wait`](Self::wait)
/// or [`wait_async`](Self::wait_async).
#[derive(Debug)]
pub struct CommandTicket {
    reply: flume::Receiver<LampResult<Reply>>,
}

impl CommandTicket {
    /// Blocks until the lamp answers, the command fails, or the driver stops.
    pub fn wait(self) -> LampResult<Reply> {
        self.reply.recv().unwrap_or(Err(LampError::Stopped))
    }

    /// Waits without blocking the async executor.
    pub async fn wait_async(self) -> LampResult<Reply> {
        self.reply
            .recv_async()
            .await
            .unwrap_or(Err(LampError::Stopped))
    }
}

/// A connection to one lamp that reconnects by itself.
#[derive(Debug)]
pub struct Lamp {
    inbox: flume::Sender<Inbox>,
    shared: Arc<Shared>,
    thread: Option<JoinHandle<()>>,
}

impl Lamp {
    /// Connects now: finds the lamp, opens it and completes the hello, or
    /// fails with the reason. Afterwards the driver keeps the link alive and
    /// reconnects after unplugging.
    pub fn open(config: LampConfig) -> LampResult<Self> {
        let found = discovery::resolve(&config.port, None)?;
        if found.is_none() {
            return Err(match &config.port {
                PortSelector::Auto => LampError::NoLampFound,
                PortSelector::Path(p) => LampError::Open {
                    port: p.display().to_string(),
                    reason: format!("nothing is there; {}", crate::error::NO_LAMP_FIX),
                },
            });
        }
        let patience = config.ack_timeout * config.attempts.max(1) * 2 + Duration::from_secs(2);
        let (ready_tx, ready_rx) = flume::bounded(1);
        let lamp = Self::spawn(config, Some(ready_tx))?;
        match ready_rx.recv_timeout(patience) {
            Ok(Ok(_info)) => Ok(lamp),
            Ok(Err(e)) => Err(e),
            Err(_) => Err(LampError::Stopped),
        }
    }

    /// Starts a driver that connects whenever the lamp appears (for the app,
    /// where the lamp may be plugged in later). Never waits for the lamp.
    pub fn watch(config: LampConfig) -> LampResult<Self> {
        Self::spawn(config, None)
    }

    fn spawn(
        config: LampConfig,
        ready: Option<flume::Sender<LampResult<DeviceInfo>>>,
    ) -> LampResult<Self> {
        let (tx, rx) = flume::unbounded();
        let shared = Arc::new(Shared::new());
        let link = Link::new(config, rx, tx.clone(), shared.clone(), ready);
        let thread = std::thread::Builder::new()
            .name("lamp-link".into())
            .spawn(move || link.run())
            .map_err(|e| {
                LampError::Simulator(format!("cannot start the lamp driver thread: {e}"))
            })?;
        Ok(Self {
            inbox: tx,
            shared,
            thread: Some(thread),
        })
    }

    /// Hands `command` to the driver and returns at once.
    pub fn submit(&self, command: Command) -> LampResult<CommandTicket> {
        command.check()?;
        let (reply_tx, reply_rx) = flume::bounded(1);
        self.inbox
            .send(Inbox::Request {
                command,
                reply: reply_tx,
            })
            .map_err(|_| LampError::Stopped)?;
        Ok(CommandTicket { reply: reply_rx })
    }

    /// Sends `command` and waits for the lamp's answer.
    pub fn request(&self, command: Command) -> LampResult<Reply> {
        self.submit(command)?.wait()
    }

    fn expect_ack(&self, command: Command) -> LampResult<()> {
        let name = command_name(&command);
        match self.request(command)? {
            Reply::Ack => Ok(()),
            Reply::DeviceInfo(_) => Err(LampError::UnexpectedReply {
                command: name,
                got: "device_info",
            }),
            Reply::State(_) => Err(LampError::UnexpectedReply {
                command: name,
                got: "state_report",
            }),
        }
    }

    pub fn set_light(&self, light: Light) -> LampResult<()> {
        self.expect_ack(Command::SetLight(light))
    }

    pub fn show_expression(&self, expression: Expression) -> LampResult<()> {
        self.expect_ack(Command::ShowExpression(expression))
    }

    /// Moves the arm; `speed` is 1–100 % of its top speed.
    pub fn gesture(&self, gesture: Gesture, speed: u8) -> LampResult<()> {
        self.expect_ack(Command::Gesture { gesture, speed })
    }

    pub fn projector(&self, command: ProjectorCommand) -> LampResult<()> {
        self.expect_ack(Command::Projector(command))
    }

    pub fn show_card(&self, card: Card) -> LampResult<()> {
        self.projector(ProjectorCommand::ShowCard(card))
    }

    /// Asks the lamp what it shows now (and updates [`state`](Self::state)).
    pub fn query_state(&self) -> LampResult<DeviceState> {
        match self.request(Command::QueryState)? {
            Reply::State(s) => Ok(s),
            Reply::Ack => Err(LampError::UnexpectedReply {
                command: "query_state",
                got: "ack",
            }),
            Reply::DeviceInfo(_) => Err(LampError::UnexpectedReply {
                command: "query_state",
                got: "device_info",
            }),
        }
    }

    /// One heartbeat round trip; returns how long it took.
    pub fn ping(&self) -> LampResult<Duration> {
        let start = Instant::now();
        self.expect_ack(Command::Ping)?;
        Ok(start.elapsed())
    }

    /// Shows the face and plays the gesture for a recitation verdict
    /// (see [`crate::tools::verdict_reaction`]).
    pub fn react_to_verdict(&self, passed: bool) -> LampResult<()> {
        let (expression, gesture) = crate::tools::verdict_reaction(passed);
        self.show_expression(expression)?;
        self.gesture(gesture, crate::tools::DEFAULT_SPEED)
    }

    /// A snapshot of the lamp as the driver knows it.
    pub fn state(&self) -> LampState {
        self.shared.state().snapshot()
    }

    pub fn is_connected(&self) -> bool {
        self.shared.state().connection == ConnectionState::Connected
    }

    /// What the lamp said about itself at the last handshake.
    pub fn device_info(&self) -> Option<DeviceInfo> {
        self.shared.state().device.clone()
    }

    pub fn stats(&self) -> LinkStats {
        self.shared.stats().clone()
    }

    /// A stream of events and state changes. Each call makes a new,
    /// independent stream; dropping the receiver unsubscribes.
    pub fn subscribe(&self) -> flume::Receiver<LampNotice> {
        let (tx, rx) = flume::bounded(SUBSCRIBER_BACKLOG);
        lock(&self.shared.subscribers).push(tx);
        rx
    }
}

impl Drop for Lamp {
    fn drop(&mut self) {
        let _ = self.inbox.send(Inbox::Shutdown);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// The protocol name of the message a command becomes.
pub(crate) fn command_name(command: &Command) -> &'static str {
    match command {
        Command::SetLight(_) => "set_light",
        Command::ShowExpression(_) => "show_expression",
        Command::Gesture { .. } => "arm_gesture",
        Command::Projector(_) => "projector",
        Command::QueryState => "query_state",
        Command::Ping => "heartbeat",
    }
}
