//! The desk lamp as the app sees it ([`Deskmate::lamp`]): at most one
//! connected lamp, shared by every front end. Connecting starts the
//! driver, which then reconnects by itself after unplugging; the lamp's
//! buttons drive the practice on screen
//! (`deskmate_orchestrator::scene::lamp_buttons`).
//!
//! With no lamp at hand the app can host the simulator itself
//! ([`LampLink::host_simulator`], e.g. `DESKMATE_LAMP_SIMULATE=1` in the
//! window): then the virtual panel's buttons are pressed *on the simulator*,
//! and the press reaches the app the way a real lamp's would — over the
//! pseudo-terminal, through the driver, as an event.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use deskmate_agent::tools::{Tool, ToolContext, ToolFuture, ToolOutput, ToolSet};
#[cfg(unix)]
use deskmate_lamp::simulator::{Simulator, SimulatorConfig};
use deskmate_lamp::tools::ToolSpec;
use deskmate_lamp::{DeviceEvent, Lamp, LampConfig, LampNotice, LampState, PortSelector};

use deskmate_orchestrator::PracticeScene;

use crate::events::{AppEvent, EventBus};
use crate::{AppError, AppResult, Deskmate};

/// The connected lamp, empty until one is connected; shared with the
/// practice scene's stage, which acts verdicts out on it.
#[derive(Clone, Default)]
pub(crate) struct ConnectedLamp(Arc<Mutex<Option<Arc<Lamp>>>>);

impl std::fmt::Debug for ConnectedLamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ConnectedLamp")
            .field("connected", &self.current().is_some())
            .finish()
    }
}

impl ConnectedLamp {
    pub(crate) fn current(&self) -> Option<Arc<Lamp>> {
        self.0.lock().ok().and_then(|s| s.clone())
    }

    fn set(&self, lamp: Option<Arc<Lamp>>) -> AppResult<()> {
        *self.0.lock().map_err(|_| poisoned())? = lamp;
        Ok(())
    }

    /// Acts out a recitation verdict on the lamp, if one is connected:
    /// celebrate on a pass, encourage otherwise. A lamp problem never fails
    /// the recitation; it is logged.
    pub(crate) fn react_to_verdict(&self, passed: bool) {
        if let Some(lamp) = self.current() {
            if let Err(e) = lamp.react_to_verdict(passed) {
                tracing::warn!("lamp could not react to the verdict: {e}");
            }
        }
    }
}

/// A wire value as the lamp's device protocol has it (the two serialize
/// alike; see `crates/app/src/events.rs`).
fn on_device<T: serde::Serialize, U: serde::de::DeserializeOwned>(wire: &T) -> Option<U> {
    serde_json::to_value(wire)
        .ok()
        .and_then(|v| serde_json::from_value(v).ok())
}

impl LampLink {
    /// Acts out a response's lamp cues (a face, a gesture, a card) on the
    /// connected lamp, if there is one. A lamp problem never fails the
    /// response; it is logged.
    pub(crate) fn act_out(&self, cues: &[deskmate_orchestrator::entry::LampCue]) {
        use deskmate_orchestrator::entry::LampCue;
        let Some(lamp) = self.current() else {
            return;
        };
        for cue in cues {
            let done = match cue {
                LampCue::Face { expression } => {
                    on_device(expression).map(|e| lamp.show_expression(e))
                }
                LampCue::Gesture { gesture } => {
                    on_device(gesture).map(|g| lamp.gesture(g, deskmate_lamp::tools::DEFAULT_SPEED))
                }
                LampCue::Show { card } => on_device(card).map(|c| lamp.show_card(c)),
            };
            match done {
                Some(Ok(())) => {}
                Some(Err(e)) => tracing::warn!("the lamp could not act out {cue:?}: {e}"),
                None => tracing::warn!("the lamp has no {cue:?}"),
            }
        }
    }
}

/// The lamp service (`app.lamp()`): at most one connected lamp and the
/// simulator the app hosts, when it does. Its notices go on the app's event
/// stream and its buttons to the practice scene. Clones share all of it.
#[derive(Clone)]
pub struct LampLink {
    connected: ConnectedLamp,
    #[cfg(unix)]
    simulator: Arc<Mutex<Option<Simulator>>>,
    data_dir: PathBuf,
    bus: EventBus,
    practice: PracticeScene,
}

impl std::fmt::Debug for LampLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LampLink")
            .field("connected", &self.connected.current().is_some())
            .finish()
    }
}

/// Where the environment asks the window to host the lamp simulator.
pub const LAMP_SIMULATE_ENV: &str = "DESKMATE_LAMP_SIMULATE";

/// How a press on the virtual panel was delivered.
#[derive(Debug, Clone, PartialEq)]
pub enum PanelPress {
    /// Pressed on the hosted simulator: it comes back as the lamp's own event
    /// (to the app and to every notice subscriber).
    ThroughLamp,
    /// No hosted simulator: handed to the app directly, as the given notice
    /// (the caller shows it), with what the app did about it.
    Direct {
        notice: LampNotice,
        action: deskmate_orchestrator::scene::LampAction,
    },
}

fn poisoned() -> AppError {
    AppError::Poisoned("the lamp slot was poisoned")
}

impl LampLink {
    pub(crate) fn new(
        connected: ConnectedLamp,
        data_dir: PathBuf,
        bus: EventBus,
        practice: PracticeScene,
    ) -> Self {
        Self {
            connected,
            #[cfg(unix)]
            simulator: Arc::default(),
            data_dir,
            bus,
            practice,
        }
    }

    /// Connects to the lamp at `port`, or the first one found by USB id,
    /// replacing any lamp connected before.
    pub fn connect(&self, port: Option<PathBuf>) -> AppResult<LampState> {
        let lamp = Arc::new(Lamp::open(LampConfig::new(PortSelector::from_option(
            port,
        )))?);
        let state = lamp.state();
        self.attach(lamp, true)?;
        Ok(state)
    }

    /// Puts `lamp` in the slot and follows its events; a hosted simulator is
    /// unplugged when `replace_simulator` (another lamp takes its place).
    fn attach(&self, lamp: Arc<Lamp>, replace_simulator: bool) -> AppResult<()> {
        if replace_simulator {
            #[cfg(unix)]
            self.simulator.lock().map_err(|_| poisoned())?.take();
        }
        self.connected.set(Some(lamp))?;
        self.follow_events();
        Ok(())
    }

    /// Starts following a lamp that may be plugged in later (at `port`, or
    /// the first found by USB id): the driver connects whenever it appears.
    /// The app calls this at start, so the lamp panel shows up by itself.
    pub fn watch(&self, port: Option<PathBuf>) -> AppResult<()> {
        let lamp = Arc::new(Lamp::watch(LampConfig::new(PortSelector::from_option(
            port,
        )))?);
        self.attach(lamp, true)
    }

    /// Hosts the lamp simulator in this process (on a pseudo-terminal at
    /// `<data dir>/lamp-simulator`) and follows it as the lamp; returns the
    /// link's path. The panel's buttons are then pressed on it.
    #[cfg(unix)]
    pub fn host_simulator(&self) -> AppResult<PathBuf> {
        let link = self.data_dir.join("lamp-simulator");
        if self.is_hosted_simulator() {
            return Ok(link);
        }
        let simulator = Simulator::start(SimulatorConfig::new(&link))?;
        let lamp = Arc::new(Lamp::watch(LampConfig::new(PortSelector::from_option(
            Some(link.clone()),
        )))?);
        *self.simulator.lock().map_err(|_| poisoned())? = Some(simulator);
        self.attach(lamp, false)?;
        Ok(link)
    }

    /// Hosting the simulator needs a Unix pseudo-terminal.
    #[cfg(not(unix))]
    pub fn host_simulator(&self) -> AppResult<PathBuf> {
        Err(AppError::Lamp(deskmate_lamp::LampError::Simulator(
            "the lamp simulator needs a Unix pseudo-terminal (Linux or macOS)".into(),
        )))
    }

    /// Whether the lamp is the simulator this app hosts.
    pub fn is_hosted_simulator(&self) -> bool {
        #[cfg(unix)]
        {
            self.simulator.lock().map(|s| s.is_some()).unwrap_or(false)
        }
        #[cfg(not(unix))]
        {
            false
        }
    }

    /// A button on the virtual lamp panel. With a hosted simulator the press
    /// happens on it and returns as the lamp's event; otherwise the app gets
    /// the event directly, exactly as if the lamp had sent it.
    pub fn panel_press(&self, event: DeviceEvent) -> AppResult<PanelPress> {
        #[cfg(unix)]
        {
            let slot = self.simulator.lock().map_err(|_| poisoned())?;
            if let Some(simulator) = slot.as_ref() {
                simulator.raise(event)?;
                return Ok(PanelPress::ThroughLamp);
            }
        }
        let action = self.practice.lamp_event(&event);
        let notice = LampNotice::Event {
            event,
            at_unix_ms: deskmate_lamp::state::now_unix_ms(),
        };
        // The window is shown the same notice a lamp would send.
        self.bus
            .publish(AppEvent::Lamp(crate::events::lamp_notice(notice.clone())));
        Ok(PanelPress::Direct { notice, action })
    }

    /// Forgets the connected lamp (its driver thread stops) and any hosted simulator.
    pub fn disconnect(&self) {
        if let Err(e) = self.connected.set(None) {
            tracing::warn!("cannot forget the lamp: {e}");
        }
        #[cfg(unix)]
        if let Ok(mut sim) = self.simulator.lock() {
            sim.take();
        }
    }

    /// The connected lamp, if any.
    pub fn current(&self) -> Option<Arc<Lamp>> {
        self.connected.current()
    }

    /// What a lamp panel shows, when a lamp is connected.
    pub fn state(&self) -> Option<LampState> {
        self.current().map(|l| l.state())
    }

    /// Acts out a recitation verdict on the connected lamp, if any.
    pub fn react_to_verdict(&self, passed: bool) {
        self.connected.react_to_verdict(passed);
    }

    /// Notices (events, connection and state changes) of the connected lamp;
    /// front ends get them as [`AppEvent::Lamp`].
    pub(crate) fn notices(&self) -> Option<flume::Receiver<LampNotice>> {
        self.current().map(|l| l.subscribe())
    }

    /// Follows the connected lamp's notices on a thread of their own, which
    /// ends when the lamp is disconnected or replaced: each is published on
    /// the app's event stream, and the buttons drive the open practice.
    fn follow_events(&self) {
        let Some(notices) = self.notices() else {
            return;
        };
        let (bus, practice) = (self.bus.clone(), self.practice.clone());
        let spawned = std::thread::Builder::new()
            .name("lamp-buttons".into())
            .spawn(move || {
                for notice in notices.iter() {
                    bus.publish(AppEvent::Lamp(crate::events::lamp_notice(notice.clone())));
                    if let LampNotice::Event { event, .. } = notice {
                        practice.lamp_event(&event);
                    }
                }
            });
        if let Err(e) = spawned {
            tracing::warn!("the lamp's buttons will not drive the app: {e}");
        }
    }
}

impl Deskmate {
    /// The desk lamp: connect, watch, host the simulator, the virtual panel.
    pub fn lamp(&self) -> &LampLink {
        &self.lamp
    }
}

/// One of the lamp's four tools, offered to the companion while a lamp is connected.
struct LampTool {
    lamp: Arc<Lamp>,
    spec: ToolSpec,
}

impl Tool for LampTool {
    fn name(&self) -> &'static str {
        self.spec.name
    }

    fn description(&self) -> &'static str {
        self.spec.description
    }

    fn parameters(&self) -> serde_json::Value {
        self.spec.parameters.clone()
    }

    fn call(&self, _ctx: ToolContext, args: serde_json::Value) -> ToolFuture {
        let lamp = self.lamp.clone();
        let name = self.spec.name;
        Box::pin(async move {
            // The driver waits for the lamp's ack: blocking work, off the executor.
            match tokio::task::spawn_blocking(move || lamp.run_tool(name, &args)).await {
                Ok(Ok(answer)) => ToolOutput::ok(answer),
                Ok(Err(e)) => ToolOutput::error(e.to_string()),
                Err(e) => ToolOutput::error(format!("the lamp tool stopped: {e}")),
            }
        })
    }
}

/// Adds the lamp's tools (those its firmware offers) to the companion's.
pub(crate) fn add_lamp_tools(lamp: &Arc<Lamp>, tools: &mut ToolSet) {
    for spec in lamp.available_tools() {
        tools.add(Arc::new(LampTool {
            lamp: lamp.clone(),
            spec,
        }));
    }
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use crate::Config;
    use deskmate_lamp::simulator::{Simulator, SimulatorConfig};

    #[test]
    fn connect_react_and_disconnect_through_the_app() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        assert!(app.lamp().state().is_none());
        app.lamp().react_to_verdict(true); // no lamp: nothing happens, no error

        let link = dir.path().join("lamp0");
        let _sim = Simulator::start(SimulatorConfig::new(&link)).unwrap();
        let state = app.lamp().connect(Some(link)).unwrap();
        assert_eq!(state.connection, deskmate_lamp::ConnectionState::Connected);
        app.lamp().react_to_verdict(true);
        let s = app.lamp().state().unwrap();
        assert_eq!(s.expression, deskmate_lamp::Expression::Happy);
        app.lamp().disconnect();
        assert!(app.lamp().state().is_none());
    }

    #[test]
    fn watching_connects_when_the_lamp_appears() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let link = dir.path().join("lamp0");
        app.lamp().watch(Some(link.clone())).unwrap();
        assert_eq!(
            app.lamp().state().unwrap().connection,
            deskmate_lamp::ConnectionState::Disconnected
        );
        let _sim = Simulator::start(SimulatorConfig::new(&link)).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while app.lamp().state().unwrap().connection != deskmate_lamp::ConnectionState::Connected {
            assert!(
                std::time::Instant::now() < deadline,
                "the watched lamp never connected"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    #[test]
    fn lamp_tools_are_offered_only_while_a_lamp_is_connected() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let lamp_tools = |app: &Deskmate| {
            app.chat()
                .tools()
                .names()
                .into_iter()
                .filter(|n| n.starts_with("lamp_"))
                .count()
        };
        assert_eq!(lamp_tools(&app), 0);
        let link = dir.path().join("lamp0");
        let sim = Simulator::start(SimulatorConfig::new(&link)).unwrap();
        app.lamp().connect(Some(link)).unwrap();
        assert_eq!(lamp_tools(&app), 4);
        drop(sim); // unplugged
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while lamp_tools(&app) != 0 {
            assert!(
                std::time::Instant::now() < deadline,
                "lamp tools still offered after unplugging"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    #[tokio::test]
    async fn a_lamp_tool_call_moves_the_lamp() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let link = dir.path().join("lamp0");
        let _sim = Simulator::start(SimulatorConfig::new(&link)).unwrap();
        let app2 = app.clone();
        tokio::task::spawn_blocking(move || app2.lamp().connect(Some(link)))
            .await
            .unwrap()
            .unwrap();
        let tools = app.chat().tools();
        let tool = tools.get("lamp_expression").unwrap();
        let ctx = ToolContext {
            sandbox: Arc::new(deskmate_agent::Sandbox::open(dir.path()).unwrap()),
            thread_id: "t".into(),
            tool_call_id: "c".into(),
            run: None,
        };
        let out = tool
            .call(ctx.clone(), serde_json::json!({"expression": "surprised"}))
            .await;
        assert!(!out.is_error, "{}", out.content);
        assert_eq!(
            app.lamp().state().unwrap().expression,
            deskmate_lamp::Expression::Surprised
        );
        let bad = tool
            .call(ctx, serde_json::json!({"expression": "grumpy"}))
            .await;
        assert!(bad.is_error);
    }

    fn wait_connected(app: &Deskmate) {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while app.lamp().state().map(|s| s.connection)
            != Some(deskmate_lamp::ConnectionState::Connected)
        {
            assert!(
                std::time::Instant::now() < deadline,
                "the lamp never connected"
            );
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    /// The next event notice (state and connection notices skipped), if one comes within 10 s.
    fn next_event(notices: &flume::Receiver<LampNotice>) -> Option<DeviceEvent> {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        loop {
            let left = deadline.saturating_duration_since(std::time::Instant::now());
            match notices.recv_timeout(left) {
                Ok(LampNotice::Event { event, .. }) => return Some(event),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
    }

    /// The task events the app publishes from now on.
    fn tasks(app: &Deskmate) -> std::sync::mpsc::Receiver<deskmate_protocol::TaskEvent> {
        let (tx, rx) = std::sync::mpsc::channel();
        let events = app.events();
        std::thread::spawn(move || {
            for event in events.iter() {
                if let crate::events::AppEvent::Task(t) = event {
                    if tx.send(*t).is_err() {
                        break;
                    }
                }
            }
        });
        rx
    }

    #[test]
    fn panel_presses_go_through_the_hosted_simulator_and_come_back_as_the_lamp_s_events() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        assert!(!app.lamp().is_hosted_simulator());
        let link = app.lamp().host_simulator().unwrap();
        assert!(app.lamp().is_hosted_simulator());
        assert_eq!(
            app.lamp().host_simulator().unwrap(),
            link,
            "hosting twice keeps the one simulator"
        );
        wait_connected(&app);
        let notices = app.lamp().notices().unwrap();
        let events = app.events();
        for event in [
            DeviceEvent::Touch,
            DeviceEvent::Presence(true),
            DeviceEvent::Button(deskmate_lamp::Button::Stop),
        ] {
            assert_eq!(
                app.lamp().panel_press(event).unwrap(),
                PanelPress::ThroughLamp
            );
            assert_eq!(
                next_event(&notices),
                Some(event),
                "the press came back from the lamp over the pty"
            );
        }
        assert!(
            app.lamp().current().unwrap().stats().events >= 3,
            "the driver counted the simulator's events"
        );
        // Every notice also went out on the app's event stream.
        use deskmate_protocol::lamp::{self as wire, LampNotice as WireNotice};
        let mut published: Vec<wire::DeviceEvent> = Vec::new();
        while published.len() < 3 {
            match events.recv_timeout(std::time::Duration::from_secs(10)) {
                Ok(crate::events::AppEvent::Lamp(WireNotice::Event { event, .. })) => {
                    published.push(event)
                }
                Ok(_) => {}
                Err(e) => panic!("{e}; published so far: {published:?}"),
            }
        }
        assert_eq!(
            published,
            [
                wire::DeviceEvent::Touch,
                wire::DeviceEvent::Presence(true),
                wire::DeviceEvent::Button(wire::Button::Stop)
            ]
        );
        // Another lamp takes the simulator's place: presses are then the app's own.
        app.lamp().disconnect();
        assert!(!app.lamp().is_hosted_simulator());
        match app.lamp().panel_press(DeviceEvent::Touch).unwrap() {
            PanelPress::Direct {
                notice: LampNotice::Event { event, .. },
                action,
            } => {
                assert_eq!(event, DeviceEvent::Touch);
                assert!(
                    matches!(action, crate::practice::LampAction::Ignored { .. }),
                    "{action:?}"
                );
            }
            other => panic!("{other:?}"),
        }
        // … and the window is shown the notice a lamp would have sent.
        assert!(events.try_iter().any(|e| matches!(
            e,
            crate::events::AppEvent::Lamp(WireNotice::Event {
                event: wire::DeviceEvent::Touch,
                ..
            })
        )));
    }

    #[test]
    fn the_lamp_acts_out_what_the_entry_answers() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let (child, _poem) = deskmate_testkit::family::child_with_jing_ye_si(app.store());
        // No lamp: the answer comes all the same.
        let r = app.process(&child.id, "今天做什么").unwrap();
        assert!(matches!(
            r.lamp.first(),
            Some(deskmate_orchestrator::entry::LampCue::Face { .. })
        ));
        app.lamp().host_simulator().unwrap();
        wait_connected(&app);
        // The plan: a happy face and today's plan on the projector.
        let r = app.process(&child.id, "今天做什么").unwrap();
        assert_eq!(r.phase, "today");
        let s = app.lamp().state().unwrap();
        assert_eq!(s.expression, deskmate_lamp::Expression::Happy);
        let card = s.projector.card.expect("the plan is projected");
        assert_eq!(card.title, "今天的计划");
        assert_eq!(card.lines.len(), r.plan.unwrap().tasks.len().min(6));
        // A title alone is asked about: the lamp thinks, and the screen offers yes / no.
        let r = app.process(&child.id, "春晓").unwrap();
        assert_eq!(
            r.suggestions
                .iter()
                .filter_map(|s| s.button.as_deref())
                .collect::<Vec<_>>(),
            ["screen:yes", "screen:no"]
        );
        assert_eq!(
            app.lamp().state().unwrap().expression,
            deskmate_lamp::Expression::Thinking
        );
        // Typed: nothing to read aloud; the session is the same all day.
        assert!(!r.need_tts);
        let again = app.process(&child.id, "不用了").unwrap();
        assert_eq!(again.session_id, r.session_id);
        assert_eq!(again.session_id.len(), 36);
    }

    #[test]
    fn the_lamp_s_start_button_starts_recording_in_the_open_voice_practice() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let tasks = tasks(&app);
        app.lamp().host_simulator().unwrap();
        wait_connected(&app);
        let (child, poem) = deskmate_testkit::family::child_with_jing_ye_si(app.store());
        let start = DeviceEvent::Button(deskmate_lamp::Button::Start);
        use crate::practice::LampAction;

        // Nothing open: the press is shown, nothing else happens.
        assert!(matches!(
            app.practice().lamp_event(&start),
            LampAction::Ignored { .. }
        ));
        // A typed practice has no recording.
        let typed = app
            .practice()
            .start(&child.id, &poem.id, deskmate_recite::Mode::Text)
            .unwrap();
        assert!(matches!(
            app.practice().lamp_event(&start),
            LampAction::Ignored { .. }
        ));
        app.practice().leave(&typed.id).unwrap();

        // A voice practice: the press on the simulator reaches the recording.
        // This data directory has no speech models, so the window is told
        // why the microphone could not open — proof the press got that far.
        let voice = app
            .practice()
            .start(&child.id, &poem.id, deskmate_recite::Mode::Voice)
            .unwrap();
        assert_eq!(
            app.practice().open_practice().as_deref(),
            Some(voice.id.as_str())
        );
        assert_eq!(
            app.lamp().panel_press(start).unwrap(),
            PanelPress::ThroughLamp
        );
        let told = tasks
            .recv_timeout(std::time::Duration::from_secs(10))
            .expect("the start press never reached the practice");
        assert_eq!(told.practice_id, voice.id);
        assert_eq!(told.status, deskmate_protocol::TaskStatus::Failed);
        assert!(
            told.error
                .as_ref()
                .is_some_and(|e| e.code == "models.needed" && e.message.contains("speech models")),
            "{told:?}"
        );
        // The practice is untouched and still ready.
        assert_eq!(
            app.practice().current(&child.id).unwrap().unwrap().state,
            deskmate_orchestrator::PracticeState::Ready
        );
        // Stop with no recording does nothing.
        let stop = app
            .practice()
            .lamp_event(&DeviceEvent::Button(deskmate_lamp::Button::Stop));
        assert_eq!(
            stop,
            LampAction::Ignored {
                why: "not recording".into()
            }
        );
        // After leaving, the buttons have no practice to drive.
        app.practice().leave(&voice.id).unwrap();
        assert_eq!(app.practice().open_practice(), None);
        assert!(matches!(
            app.practice().lamp_event(&start),
            LampAction::Ignored { .. }
        ));
    }

    #[test]
    fn connecting_to_nothing_is_a_plain_error() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let err = app
            .lamp()
            .connect(Some(dir.path().join("no-such-tty")))
            .unwrap_err()
            .to_string();
        assert!(err.contains("lamp"), "{err}");
        assert!(app.lamp().state().is_none());
    }
}
