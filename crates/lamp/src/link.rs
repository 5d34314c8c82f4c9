//! The link thread: owns the port, numbers commands and sends them one at a
//! time (stop-and-wait, so order is kept across retries), retries on a
//! missing acknowledgement, heartbeats an idle line, acknowledges and
//! de-duplicates the lamp's events, and reconnects after unplugging —
//! restoring what the host had set, or adopting the lamp's own state when
//! the host has set nothing yet.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::discovery::{self, PortSelector};
use crate::driver::{Command, LampConfig, Reply, Shared};
use crate::error::{LampError, LampResult};
use crate::frame::{self, Envelope};
use crate::protocol::{DeviceInfo, Message, PROTOCOL_VERSION};
use crate::state::{now_unix_ms, ConnectionState, LampNotice};
use crate::transport::{LineNews, Transport, WriteError};

/// How many recent event sequence numbers are remembered to drop repeats.
const EVENT_MEMORY: usize = 64;
/// The slowest USB rescan while disconnected.
const DISCOVERY_INTERVAL: Duration = Duration::from_millis(500);

/// What the link thread receives.
pub(crate) enum Inbox {
    Request {
        command: Command,
        reply: flume::Sender<LampResult<Reply>>,
    },
    Line {
        generation: u64,
        news: LineNews,
    },
    Shutdown,
}

/// Who asked for a command, which decides what its answer does.
enum Origin {
    User(flume::Sender<LampResult<Reply>>),
    Handshake,
    Heartbeat,
    /// Replaying the host's state after a reconnect, or reading the lamp's.
    Sync,
}

struct Pending {
    message: Message,
    origin: Origin,
}

struct InFlight {
    seq: u32,
    bytes: Vec<u8>,
    tries: u32,
    deadline: Instant,
    pending: Pending,
}

pub(crate) struct Link {
    config: LampConfig,
    inbox: flume::Receiver<Inbox>,
    inbox_tx: flume::Sender<Inbox>,
    shared: Arc<Shared>,
    ready: Option<flume::Sender<LampResult<DeviceInfo>>>,
    /// Set by the handshake; `ready` is told once the state sync after it is done.
    handshake_info: Option<DeviceInfo>,
    transport: Option<Transport>,
    generation: u64,
    next_seq: u32,
    queue: VecDeque<Pending>,
    in_flight: Option<InFlight>,
    next_attempt: Instant,
    last_heard: Instant,
    misses: u32,
    seen_events: VecDeque<u32>,
    host_has_commanded: bool,
    /// The lamp serial number seen last, to find the same lamp again.
    serial: Option<String>,
}

impl Link {
    pub fn new(
        config: LampConfig,
        inbox: flume::Receiver<Inbox>,
        inbox_tx: flume::Sender<Inbox>,
        shared: Arc<Shared>,
        ready: Option<flume::Sender<LampResult<DeviceInfo>>>,
    ) -> Self {
        let now = Instant::now();
        Self {
            config,
            inbox,
            inbox_tx,
            shared,
            ready,
            handshake_info: None,
            transport: None,
            generation: 0,
            next_seq: 1,
            queue: VecDeque::new(),
            in_flight: None,
            next_attempt: now,
            last_heard: now,
            misses: 0,
            seen_events: VecDeque::new(),
            host_has_commanded: false,
            serial: None,
        }
    }

    pub fn run(mut self) {
        loop {
            self.tick();
            let wait = self.next_wakeup().saturating_duration_since(Instant::now());
            match self.inbox.recv_timeout(wait) {
                Ok(Inbox::Shutdown) | Err(flume::RecvTimeoutError::Disconnected) => break,
                Ok(Inbox::Request { command, reply }) => self.on_request(command, reply),
                Ok(Inbox::Line { generation, news }) if generation == self.generation => {
                    self.on_line(news)
                }
                Ok(Inbox::Line { .. }) => {} // from a port already closed
                Err(flume::RecvTimeoutError::Timeout) => {}
            }
        }
        self.transport = None;
        self.fail_all(|| LampError::Stopped);
    }

    fn connection(&self) -> ConnectionState {
        self.shared.state().connection
    }

    fn port_name(&self) -> String {
        self.shared
            .state()
            .port
            .clone()
            .unwrap_or_else(|| discovery::describe(&self.config.port))
    }

    fn next_wakeup(&self) -> Instant {
        let now = Instant::now();
        let mut at = now + Duration::from_secs(1);
        if self.transport.is_none() {
            at = at.min(self.next_attempt);
        }
        if let Some(f) = &self.in_flight {
            at = at.min(f.deadline);
        } else if self.connection() == ConnectionState::Connected {
            at = at.min(self.last_heard + self.config.heartbeat_interval);
        }
        at.max(now)
    }

    /// Timers: reconnect, retries, heartbeats; then send what is queued.
    fn tick(&mut self) {
        let now = Instant::now();
        if self.transport.is_none() && now >= self.next_attempt {
            self.try_connect();
        }
        if self.in_flight.as_ref().is_some_and(|f| now >= f.deadline) {
            self.on_ack_timeout();
        }
        if self.connection() == ConnectionState::Connected
            && self.in_flight.is_none()
            && self.queue.is_empty()
            && now >= self.last_heard + self.config.heartbeat_interval
        {
            self.queue.push_back(Pending {
                message: Message::Heartbeat,
                origin: Origin::Heartbeat,
            });
        }
        self.pump();
    }

    fn try_connect(&mut self) {
        let interval = match self.config.port {
            PortSelector::Auto => self.config.reconnect_interval.max(DISCOVERY_INTERVAL),
            PortSelector::Path(_) => self.config.reconnect_interval,
        };
        self.next_attempt = Instant::now() + interval;
        let name = match discovery::resolve(&self.config.port, self.serial.as_deref()) {
            Ok(Some(name)) => name,
            Ok(None) => return self.report_ready(Err(LampError::NoLampFound)),
            Err(e) => return self.report_ready(Err(e)),
        };
        self.generation += 1;
        let generation = self.generation;
        let inbox = self.inbox_tx.clone();
        let sink = Box::new(move |news| inbox.send(Inbox::Line { generation, news }).is_ok());
        match Transport::open(&name, sink) {
            Ok(transport) => {
                tracing::debug!(port = %name, "lamp port open, saying hello");
                self.transport = Some(transport);
                self.seen_events.clear();
                self.misses = 0;
                self.last_heard = Instant::now();
                self.set_connection(ConnectionState::Connecting, Some(name));
                let hello = Message::Hello {
                    protocol: PROTOCOL_VERSION,
                    host: self.config.host.clone(),
                };
                self.queue.push_front(Pending {
                    message: hello,
                    origin: Origin::Handshake,
                });
            }
            Err(reason) => {
                tracing::debug!(port = %name, %reason, "cannot open lamp port");
                self.report_ready(Err(LampError::Open { port: name, reason }));
            }
        }
    }

    /// Tells `Lamp::open` how the first connection went (only once).
    fn report_ready(&mut self, result: LampResult<DeviceInfo>) {
        if let Some(ready) = self.ready.take() {
            let _ = ready.send(result);
        }
    }

    fn set_connection(&mut self, connection: ConnectionState, port: Option<String>) {
        let (changed, port) = {
            let mut state = self.shared.state();
            let changed = state.connection != connection;
            state.connection = connection;
            if port.is_some() {
                state.port = port;
            }
            (changed, state.port.clone())
        };
        if changed {
            self.shared.publish(&LampNotice::Connection {
                state: connection,
                port,
                at_unix_ms: now_unix_ms(),
            });
        }
    }

    fn publish_state(&self) {
        let state = Box::new(self.shared.state().snapshot());
        self.shared.publish(&LampNotice::State {
            state,
            at_unix_ms: now_unix_ms(),
        });
    }

    fn on_request(&mut self, command: Command, reply: flume::Sender<LampResult<Reply>>) {
        if self.connection() == ConnectionState::Disconnected {
            let _ = reply.send(Err(LampError::Disconnected {
                port: self.port_name(),
            }));
            return;
        }
        let message = match command {
            Command::SetLight(light) => Message::SetLight(light),
            Command::ShowExpression(e) => Message::ShowExpression(e),
            Command::Gesture { gesture, speed } => Message::ArmGesture { gesture, speed },
            Command::Projector(p) => Message::Projector(p),
            Command::QueryState => Message::QueryState,
            Command::Ping => Message::Heartbeat,
        };
        self.queue.push_back(Pending {
            message,
            origin: Origin::User(reply),
        });
        self.pump();
    }

    /// Sends the next queued command if none is waiting for its answer.
    fn pump(&mut self) {
        if self.in_flight.is_some() || self.transport.is_none() {
            return;
        }
        let connecting = self.connection() == ConnectionState::Connecting;
        let Some(front) = self.queue.front() else {
            return;
        };
        if connecting && !matches!(front.origin, Origin::Handshake) {
            return;
        }
        let Some(pending) = self.queue.pop_front() else {
            return;
        };
        let seq = self.take_seq();
        match frame::encode(seq, &pending.message) {
            Ok(bytes) => {
                let flight = InFlight {
                    seq,
                    bytes,
                    tries: 0,
                    deadline: Instant::now(),
                    pending,
                };
                self.in_flight = Some(flight);
                self.transmit_in_flight();
            }
            Err(e) => complete(pending.origin, Err(LampError::Invalid(e.to_string()))),
        }
    }

    fn take_seq(&mut self) -> u32 {
        let seq = self.next_seq;
        self.next_seq = self.next_seq.wrapping_add(1).max(1);
        seq
    }

    fn transmit_in_flight(&mut self) {
        let Some(flight) = self.in_flight.as_mut() else {
            return;
        };
        flight.tries += 1;
        flight.deadline = Instant::now() + self.config.ack_timeout;
        let bytes = flight.bytes.clone();
        if flight.tries > 1 {
            self.shared.stats().retries += 1;
        }
        self.write(&bytes);
    }

    fn write(&mut self, bytes: &[u8]) {
        let Some(transport) = self.transport.as_mut() else {
            return;
        };
        match transport.send(bytes) {
            Ok(()) => self.shared.stats().frames_sent += 1,
            Err(WriteError::Full) => tracing::debug!("lamp line full; frame dropped, will retry"),
            Err(WriteError::Lost(reason)) => self.link_lost(&reason),
        }
    }

    fn on_ack_timeout(&mut self) {
        let Some(flight) = self.in_flight.as_ref() else {
            return;
        };
        if flight.tries < self.config.attempts.max(1) {
            self.transmit_in_flight();
            return;
        }
        let Some(flight) = self.in_flight.take() else {
            return;
        };
        self.shared.stats().timeouts += 1;
        let command = flight.pending.message.name();
        let error = LampError::Timeout {
            command,
            seq: flight.seq,
            tries: flight.tries,
        };
        match flight.pending.origin {
            Origin::Handshake => {
                let port = self.port_name();
                self.report_ready(Err(LampError::Handshake {
                    port,
                    reason: error.to_string(),
                }));
                self.link_lost("the lamp did not answer the hello");
                return;
            }
            origin => complete(origin, Err(error)),
        }
        self.maybe_ready();
        self.misses += 1;
        if self.misses >= self.config.max_misses.max(1) {
            self.link_lost("the lamp stopped answering");
        }
    }

    fn on_line(&mut self, news: LineNews) {
        match news {
            LineNews::Frame(envelope) => self.on_frame(envelope),
            LineNews::BadFrame(e) => {
                tracing::debug!(error = %e, "bad frame from the lamp");
                self.shared.stats().bad_frames += 1;
            }
            LineNews::Lost(reason) => self.link_lost(&reason),
        }
    }

    fn on_frame(&mut self, envelope: Envelope) {
        self.last_heard = Instant::now();
        self.misses = 0;
        self.shared.stats().frames_received += 1;
        match envelope.message {
            Message::Ack { seq } => self.on_answer(seq, Ok(Answer::Ack)),
            Message::Nack { seq, error } => {
                self.shared.stats().nacks += 1;
                self.on_answer(seq, Err(error));
            }
            Message::DeviceInfo { reply_to, info } => {
                self.on_answer(reply_to, Ok(Answer::Info(info)))
            }
            Message::StateReport { reply_to, state } => {
                self.on_answer(reply_to, Ok(Answer::State(Box::new(state))));
            }
            Message::Event(event) => {
                self.acknowledge(envelope.seq);
                if self.seen_events.contains(&envelope.seq) {
                    self.shared.stats().duplicate_events += 1;
                    return;
                }
                if self.seen_events.len() >= EVENT_MEMORY {
                    self.seen_events.pop_front();
                }
                self.seen_events.push_back(envelope.seq);
                self.shared.stats().events += 1;
                self.shared.publish(&LampNotice::Event {
                    event,
                    at_unix_ms: now_unix_ms(),
                });
            }
            Message::Heartbeat => self.acknowledge(envelope.seq),
            other => tracing::debug!(
                message = other.name(),
                "ignoring a host-side message from the lamp"
            ),
        }
    }

    fn acknowledge(&mut self, seq: u32) {
        let own = self.take_seq();
        match frame::encode(own, &Message::Ack { seq }) {
            Ok(bytes) => self.write(&bytes),
            Err(e) => tracing::warn!(error = %e, "cannot encode an ack"),
        }
    }

    /// The lamp answered command `seq`.
    fn on_answer(&mut self, seq: u32, answer: Result<Answer, crate::protocol::NackError>) {
        if self.in_flight.as_ref().is_none_or(|f| f.seq != seq) {
            tracing::debug!(seq, "late or unknown answer from the lamp; ignored");
            return;
        }
        let Some(flight) = self.in_flight.take() else {
            return;
        };
        let name = flight.pending.message.name();
        match (flight.pending.origin, answer) {
            (Origin::Handshake, Ok(Answer::Info(info))) => self.on_handshake(info),
            (Origin::Handshake, Ok(_)) => {
                self.handshake_failed("it answered with something other than its device info")
            }
            (Origin::Handshake, Err(nack)) => self.handshake_failed(&nack.to_string()),
            (origin, Err(error)) => complete(
                origin,
                Err(LampError::Rejected {
                    command: name,
                    error,
                }),
            ),
            (origin, Ok(Answer::State(state))) => {
                self.shared.state().adopt(&state);
                self.publish_state();
                complete(origin, Ok(Reply::State(*state)));
            }
            (origin, Ok(Answer::Info(info))) => complete(origin, Ok(Reply::DeviceInfo(info))),
            (origin, Ok(Answer::Ack)) => {
                let is_user = matches!(origin, Origin::User(_));
                if self.apply_acked(&flight.pending.message) {
                    self.host_has_commanded |= is_user;
                    self.publish_state();
                }
                complete(origin, Ok(Reply::Ack));
            }
        }
        self.maybe_ready();
        self.pump();
    }

    /// Records what an acknowledged command changed; true if anything did.
    fn apply_acked(&self, message: &Message) -> bool {
        let mut state = self.shared.state();
        match message {
            Message::SetLight(light) => state.light = *light,
            Message::ShowExpression(e) => state.expression = *e,
            Message::ArmGesture { gesture, speed } => {
                state.gesture = Some((*gesture, *speed, Instant::now()))
            }
            Message::Projector(p) => state.projector.apply(p),
            _ => return false,
        }
        true
    }

    fn on_handshake(&mut self, info: DeviceInfo) {
        tracing::info!(model = %info.model, serial = %info.serial, "lamp connected");
        self.serial = Some(info.serial.clone());
        self.shared.state().device = Some(info.clone());
        self.shared.stats().connects += 1;
        // Replay the host's state onto a lamp that may have lost power, or
        // learn the lamp's state if the host has not set anything yet.
        let sync: Vec<Message> = if self.host_has_commanded {
            let state = self.shared.state();
            let mut replay = vec![
                Message::SetLight(state.light),
                Message::ShowExpression(state.expression),
            ];
            replay.extend(state.projector.restore_command().map(Message::Projector));
            replay
        } else {
            vec![Message::QueryState]
        };
        for message in sync.into_iter().rev() {
            self.queue.push_front(Pending {
                message,
                origin: Origin::Sync,
            });
        }
        self.set_connection(ConnectionState::Connected, None);
        self.handshake_info = Some(info);
    }

    /// Tells `Lamp::open` the lamp is ready once the sync after the
    /// handshake has finished (well or not: the link itself is up).
    fn maybe_ready(&mut self) {
        let syncing = self.queue.iter().any(|p| matches!(p.origin, Origin::Sync))
            || self
                .in_flight
                .as_ref()
                .is_some_and(|f| matches!(f.pending.origin, Origin::Sync));
        if !syncing {
            if let Some(info) = self.handshake_info.take() {
                self.report_ready(Ok(info));
            }
        }
    }

    fn handshake_failed(&mut self, reason: &str) {
        let port = self.port_name();
        self.report_ready(Err(LampError::Handshake {
            port,
            reason: reason.to_string(),
        }));
        self.link_lost(&format!("handshake failed: {reason}"));
    }

    /// The port is gone or the lamp stopped answering: close it, fail what
    /// waits, and look for the lamp again.
    fn link_lost(&mut self, reason: &str) {
        if self.transport.is_none() {
            return;
        }
        tracing::info!(%reason, "lamp link lost");
        self.transport = None;
        self.handshake_info = None;
        self.generation += 1;
        self.shared.stats().disconnects += 1;
        self.next_attempt = Instant::now() + self.config.reconnect_interval;
        if let Some(flight) = self.in_flight.take() {
            let command = flight.pending.message.name();
            complete(flight.pending.origin, Err(LampError::LinkLost { command }));
        }
        let port = self.port_name();
        self.fail_all(|| LampError::Disconnected { port: port.clone() });
        self.set_connection(ConnectionState::Disconnected, None);
        self.report_ready(Err(LampError::Handshake {
            port: self.port_name(),
            reason: reason.to_string(),
        }));
    }

    fn fail_all(&mut self, error: impl Fn() -> LampError) {
        if let Some(flight) = self.in_flight.take() {
            complete(flight.pending.origin, Err(error()));
        }
        for pending in self.queue.drain(..) {
            complete(pending.origin, Err(error()));
        }
    }
}

/// A positive answer from the lamp.
enum Answer {
    Ack,
    Info(DeviceInfo),
    State(Box<crate::protocol::DeviceState>),
}

fn complete(origin: Origin, result: LampResult<Reply>) {
    match origin {
        Origin::User(reply) => {
            let _ = reply.send(result);
        }
        Origin::Heartbeat | Origin::Sync | Origin::Handshake => {
            if let Err(e) = result {
                tracing::debug!(error = %e, "internal lamp command failed");
            }
        }
    }
}
