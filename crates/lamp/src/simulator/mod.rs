//! A lamp simulator on a real pseudo-terminal. It behaves like the lamp's
//! firmware (see [`device`]), can misbehave on purpose (see [`faults`]), and
//! can be unplugged and plugged back in.
//!
//! The driver opens the simulator through a stable symlink (`link`) that
//! points at the current pty's slave side. Unplugging closes the pty (the
//! driver's reads fail with a hang-up) and removes the symlink; plugging back
//! in opens a fresh pty — a lamp that lost power, in its power-on state — and
//! points the symlink at it.

pub mod device;
pub mod faults;

use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serialport::{SerialPort, TTYPort};

use crate::error::{LampError, LampResult};
use crate::frame::{self, Envelope, FrameDecoder, FrameError};
use crate::protocol::{
    Capability, DeviceEvent, DeviceInfo, DeviceState, Message, PROTOCOL_VERSION,
};
use device::{DeviceCounters, DeviceModel};
pub use faults::{Fault, FaultPlan, Flap};

/// The longest the simulator sleeps before looking at its controls again.
const CONTROL_POLL: Duration = Duration::from_millis(5);

/// Receives one line per thing the simulated lamp does ("face happy", …).
pub type ActivityLog = Box<dyn Fn(&str) + Send>;

/// How to start a simulator.
pub struct SimulatorConfig {
    /// The stable path the driver opens (a symlink the simulator owns).
    pub link: PathBuf,
    pub faults: FaultPlan,
    pub info: DeviceInfo,
    pub activity: Option<ActivityLog>,
}

impl SimulatorConfig {
    /// A well-behaved simulated lamp with every part, at `link`.
    pub fn new(link: impl Into<PathBuf>) -> Self {
        Self {
            link: link.into(),
            faults: FaultPlan::default(),
            info: simulated_info(),
            activity: None,
        }
    }
}

/// What the simulated lamp says about itself.
pub fn simulated_info() -> DeviceInfo {
    DeviceInfo {
        protocol: PROTOCOL_VERSION,
        model: "Deskmate Study Lamp (simulated)".into(),
        firmware: format!("sim-{}", env!("CARGO_PKG_VERSION")),
        serial: "SIM-0001".into(),
        capabilities: Capability::ALL.to_vec(),
    }
}

/// Line-level counters of the simulator, on top of the device's own.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SimulatorStats {
    pub frames_received: u64,
    pub frames_dropped: u64,
    pub frames_sent: u64,
    pub frames_corrupted: u64,
    pub bad_frames: u64,
    pub plugs: u64,
    pub unplugs: u64,
    /// The counters of the current power cycle (reset by each plug-in).
    pub device: DeviceCounters,
}

#[derive(Debug, Default)]
struct Shared {
    state: Option<DeviceState>,
    tty: Option<String>,
    stats: SimulatorStats,
}

enum Control {
    Unplug(flume::Sender<()>),
    Replug(flume::Sender<LampResult<String>>),
    Raise(DeviceEvent, flume::Sender<LampResult<()>>),
    Faults(FaultPlan, flume::Sender<()>),
    Stop,
}

/// A running simulated lamp. Dropping it unplugs it and removes its link.
pub struct Simulator {
    link: PathBuf,
    control: flume::Sender<Control>,
    shared: Arc<Mutex<Shared>>,
    thread: Option<JoinHandle<()>>,
}

fn lock(m: &Mutex<Shared>) -> MutexGuard<'_, Shared> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Simulator {
    /// Opens a pty, points `config.link` at it and starts answering.
    pub fn start(config: SimulatorConfig) -> LampResult<Self> {
        prepare_link(&config.link)?;
        let shared = Arc::new(Mutex::new(Shared::default()));
        let (tx, rx) = flume::unbounded();
        let mut runner = Runner {
            link: config.link.clone(),
            plan: config.faults,
            info: config.info,
            activity: config.activity,
            shared: shared.clone(),
            control: rx,
            plugged: None,
            flap_at: None,
            stats: SimulatorStats::default(),
        };
        runner.plug()?;
        let thread = std::thread::Builder::new()
            .name("lamp-simulator".into())
            .spawn(move || runner.run())
            .map_err(|e| LampError::Simulator(format!("cannot start the simulator thread: {e}")))?;
        Ok(Self {
            link: config.link,
            control: tx,
            shared,
            thread: Some(thread),
        })
    }

    /// The stable path to give the driver.
    pub fn link(&self) -> &Path {
        &self.link
    }

    /// The pty the link points at now, if plugged in.
    pub fn tty_path(&self) -> Option<String> {
        lock(&self.shared).tty.clone()
    }

    pub fn is_plugged(&self) -> bool {
        lock(&self.shared).tty.is_some()
    }

    /// The lamp's state now, or `None` while unplugged.
    pub fn state(&self) -> Option<DeviceState> {
        lock(&self.shared).state.clone()
    }

    pub fn stats(&self) -> SimulatorStats {
        lock(&self.shared).stats.clone()
    }

    /// Pulls the cable: closes the pty and removes the link.
    pub fn unplug(&self) -> LampResult<()> {
        let (tx, rx) = flume::bounded(1);
        self.control
            .send(Control::Unplug(tx))
            .map_err(|_| stopped())?;
        rx.recv().map_err(|_| stopped())
    }

    /// Plugs the lamp back in (powered up afresh); returns the new pty path.
    pub fn replug(&self) -> LampResult<String> {
        let (tx, rx) = flume::bounded(1);
        self.control
            .send(Control::Replug(tx))
            .map_err(|_| stopped())?;
        rx.recv().map_err(|_| stopped())?
    }

    /// A button press, touch or presence change at the lamp.
    pub fn raise(&self, event: DeviceEvent) -> LampResult<()> {
        let (tx, rx) = flume::bounded(1);
        self.control
            .send(Control::Raise(event, tx))
            .map_err(|_| stopped())?;
        rx.recv().map_err(|_| stopped())?
    }

    /// Changes how the lamp misbehaves; in effect when this returns.
    pub fn set_faults(&self, plan: FaultPlan) -> LampResult<()> {
        let (tx, rx) = flume::bounded(1);
        self.control
            .send(Control::Faults(plan, tx))
            .map_err(|_| stopped())?;
        rx.recv().map_err(|_| stopped())
    }
}

impl Drop for Simulator {
    fn drop(&mut self) {
        let _ = self.control.send(Control::Stop);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

fn stopped() -> LampError {
    LampError::Simulator("the simulator has stopped".into())
}

/// Makes room for the link: its folder must exist, and anything already
/// there must be a symlink (a leftover from an earlier run), never a file.
fn prepare_link(link: &Path) -> LampResult<()> {
    if let Some(parent) = link.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            LampError::Simulator(format!("cannot create {}: {e}", parent.display()))
        })?;
    }
    match std::fs::symlink_metadata(link) {
        Ok(meta) if meta.file_type().is_symlink() => std::fs::remove_file(link).map_err(|e| {
            LampError::Simulator(format!(
                "cannot remove the old link {}: {e}",
                link.display()
            ))
        }),
        Ok(_) => Err(LampError::LinkOccupied {
            path: link.to_path_buf(),
        }),
        Err(_) => Ok(()),
    }
}

/// Points `link` at `target`, replacing it atomically.
fn point_link(link: &Path, target: &str) -> LampResult<()> {
    let mut tmp = link.as_os_str().to_owned();
    tmp.push(".new");
    let tmp = PathBuf::from(tmp);
    let _ = std::fs::remove_file(&tmp);
    std::os::unix::fs::symlink(target, &tmp)
        .and_then(|()| std::fs::rename(&tmp, link))
        .map_err(|e| {
            LampError::Simulator(format!("cannot link {} to {target}: {e}", link.display()))
        })
}

/// One power cycle: the pty and the firmware state behind it.
struct Plugged {
    master: TTYPort,
    /// Held open so the master never sees a hang-up when the host closes.
    _slave: TTYPort,
    tty: String,
    model: DeviceModel,
    decoder: FrameDecoder,
    delayed: Vec<(Instant, Message, u32)>,
}

struct Runner {
    link: PathBuf,
    plan: FaultPlan,
    info: DeviceInfo,
    activity: Option<ActivityLog>,
    shared: Arc<Mutex<Shared>>,
    control: flume::Receiver<Control>,
    plugged: Option<Plugged>,
    /// When flapping: the next time to unplug (if plugged) or replug.
    flap_at: Option<Instant>,
    stats: SimulatorStats,
}

impl Runner {
    fn log(&self, line: &str) {
        if let Some(activity) = &self.activity {
            activity(line);
        }
    }

    fn plug(&mut self) -> LampResult<String> {
        if let Some(p) = &self.plugged {
            return Ok(p.tty.clone());
        }
        let (master, slave) = TTYPort::pair()
            .map_err(|e| LampError::Simulator(format!("cannot open a pseudo-terminal: {e}")))?;
        let tty = slave
            .name()
            .ok_or_else(|| LampError::Simulator("the pseudo-terminal has no path".into()))?;
        point_link(&self.link, &tty)?;
        let model = DeviceModel::power_on(self.info.clone());
        self.plugged = Some(Plugged {
            master,
            _slave: slave,
            tty: tty.clone(),
            model,
            decoder: FrameDecoder::new(),
            delayed: Vec::new(),
        });
        self.stats.plugs += 1;
        self.flap_at = self.plan.flap.map(|f| Instant::now() + f.up);
        self.publish();
        self.log(&format!("plugged in at {tty}"));
        Ok(tty)
    }

    fn unplug(&mut self) {
        if self.plugged.take().is_some() {
            let _ = std::fs::remove_file(&self.link);
            self.stats.unplugs += 1;
            self.flap_at = self.plan.flap.map(|f| Instant::now() + f.down);
            self.publish();
            self.log("unplugged");
        }
    }

    fn publish(&mut self) {
        let mut shared = lock(&self.shared);
        match &self.plugged {
            Some(p) => {
                shared.state = Some(p.model.state());
                shared.tty = Some(p.tty.clone());
                self.stats.device = p.model.counters.clone();
            }
            None => {
                shared.state = None;
                shared.tty = None;
            }
        }
        shared.stats = self.stats.clone();
    }

    fn run(mut self) {
        loop {
            while let Ok(control) = self.control.try_recv() {
                if !self.on_control(control) {
                    self.unplug();
                    return;
                }
            }
            if self.flap_at.is_some_and(|at| Instant::now() >= at) {
                if self.plugged.is_some() {
                    self.unplug();
                } else if let Err(e) = self.plug() {
                    self.log(&format!("cannot plug back in: {e}"));
                }
            }
            if self.plugged.is_some() {
                self.serve();
            } else {
                let wait = self.flap_at.map_or(CONTROL_POLL * 4, |at| {
                    at.saturating_duration_since(Instant::now())
                        .min(CONTROL_POLL * 4)
                });
                match self.control.recv_timeout(wait) {
                    Ok(control) => {
                        if !self.on_control(control) {
                            return;
                        }
                    }
                    Err(flume::RecvTimeoutError::Timeout) => {}
                    Err(flume::RecvTimeoutError::Disconnected) => return,
                }
            }
        }
    }

    /// Handles one control; false means stop.
    fn on_control(&mut self, control: Control) -> bool {
        match control {
            Control::Unplug(done) => {
                self.unplug();
                let _ = done.send(());
            }
            Control::Replug(done) => {
                let _ = done.send(self.plug());
            }
            Control::Raise(event, done) => {
                let result = match self.plugged.as_mut() {
                    Some(p) => {
                        p.model.raise(event);
                        Ok(())
                    }
                    None => Err(LampError::Simulator(
                        "the simulated lamp is unplugged".into(),
                    )),
                };
                if result.is_ok() {
                    self.log(&format!(
                        "event {}",
                        serde_json::to_string(&event).unwrap_or_default()
                    ));
                }
                let _ = done.send(result);
            }
            Control::Faults(plan, done) => {
                self.flap_at = plan
                    .flap
                    .map(|f| Instant::now() + if self.plugged.is_some() { f.up } else { f.down });
                self.plan = plan;
                let _ = done.send(());
            }
            Control::Stop => return false,
        }
        true
    }

    /// One round while plugged: wait for bytes (briefly), answer them, send
    /// what is due.
    fn serve(&mut self) {
        let now = Instant::now();
        let Some(p) = self.plugged.as_mut() else {
            return;
        };
        let mut wake = now + CONTROL_POLL;
        if let Some(at) = p.delayed.iter().map(|d| d.0).min() {
            wake = wake.min(at);
        }
        if let Some(at) = p.model.next_event_due() {
            wake = wake.min(at);
        }
        let wait = wake
            .saturating_duration_since(now)
            .max(Duration::from_micros(200));
        let _ = p.master.set_timeout(wait);
        let mut buf = [0u8; 512];
        let frames = match p.master.read(&mut buf) {
            Ok(n) => p.decoder.push(&buf[..n]),
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::TimedOut | ErrorKind::Interrupted | ErrorKind::WouldBlock
                ) =>
            {
                Vec::new()
            }
            Err(e) => {
                self.log(&format!("pty read failed: {e}"));
                std::thread::sleep(CONTROL_POLL);
                Vec::new()
            }
        };
        for frame in frames {
            self.on_frame(frame);
        }
        self.send_due();
        self.publish();
    }

    fn on_frame(&mut self, frame: Result<Envelope, FrameError>) {
        let envelope = match frame {
            Ok(envelope) => envelope,
            Err(FrameError::BadMessage { seq, reason }) => {
                self.stats.bad_frames += 1;
                self.log(&format!("unreadable message #{seq}: {reason}"));
                let nack = Message::Nack {
                    seq,
                    error: crate::protocol::NackError::Malformed,
                };
                self.answer(nack);
                return;
            }
            Err(e) => {
                self.stats.bad_frames += 1;
                self.log(&format!("bad frame: {e}"));
                return;
            }
        };
        self.stats.frames_received += 1;
        if self.plan.drops(self.stats.frames_received) {
            self.stats.frames_dropped += 1;
            self.log(&format!(
                "(fault) dropped {} #{}",
                envelope.message.name(),
                envelope.seq
            ));
            return;
        }
        let Some(p) = self.plugged.as_mut() else {
            return;
        };
        let handled = p.model.handle(&envelope);
        // Publish before answering, so whoever reads the answer and then
        // looks at the simulator sees the change.
        self.publish();
        if let Some(activity) = handled.activity {
            self.log(&activity);
        }
        if let Some(reply) = handled.reply {
            self.answer(reply);
        }
    }

    /// Sends an answer now, or later under the `slow` fault.
    fn answer(&mut self, reply: Message) {
        let Some(p) = self.plugged.as_mut() else {
            return;
        };
        let seq = p.model.take_seq();
        match self.plan.answer_delay {
            Some(delay) => p.delayed.push((Instant::now() + delay, reply, seq)),
            None => self.write(seq, &reply),
        }
    }

    fn send_due(&mut self) {
        let now = Instant::now();
        let Some(p) = self.plugged.as_mut() else {
            return;
        };
        let mut due = Vec::new();
        p.delayed.retain(|(at, message, seq)| {
            if *at <= now {
                due.push((*seq, message.clone()));
                false
            } else {
                true
            }
        });
        due.extend(p.model.due_events(now));
        for (seq, message) in due {
            self.write(seq, &message);
        }
    }

    fn write(&mut self, seq: u32, message: &Message) {
        self.stats.frames_sent += 1;
        let corrupt = self.plan.corrupts(self.stats.frames_sent);
        let encoded = if corrupt {
            frame::encode_with_bad_crc(seq, message)
        } else {
            frame::encode(seq, message)
        };
        let bytes = match encoded {
            Ok(bytes) => bytes,
            Err(e) => return self.log(&format!("cannot encode {}: {e}", message.name())),
        };
        if corrupt {
            self.stats.frames_corrupted += 1;
            self.log(&format!(
                "(fault) garbled the CRC of {} #{seq}",
                message.name()
            ));
        }
        let Some(p) = self.plugged.as_mut() else {
            return;
        };
        let _ = p.master.set_timeout(CONTROL_POLL);
        if let Err(e) = p.master.write_all(&bytes) {
            // Nobody is reading (host not attached): the line is full. A
            // real lamp's USB buffer would drop the bytes too.
            tracing::debug!(error = %e, "simulator write failed");
        }
    }
}
