//! The desk lamp as the app sees it: at most one connected lamp, shared by
//! every front end through the [`Deskmate`] handle. Connecting starts the
//! driver, which then reconnects by itself after unplugging.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use deskmate_agent::tools::{SearchConfig, Tool, ToolContext, ToolFuture, ToolOutput, ToolSet};
use deskmate_lamp::tools::ToolSpec;
use deskmate_lamp::{Lamp, LampConfig, LampError, LampNotice, LampState, PortSelector};

use crate::{AppError, AppResult, Deskmate};

/// The lamp slot: empty until a lamp is connected.
#[derive(Debug, Clone, Default)]
pub struct LampSlot(Arc<Mutex<Option<Arc<Lamp>>>>);

impl From<LampError> for AppError {
    fn from(e: LampError) -> Self {
        AppError::Lamp(e.to_string())
    }
}

impl Deskmate {
    /// Connects to the lamp at `port`, or the first one found by USB id,
    /// replacing any lamp connected before.
    pub fn lamp_connect(&self, port: Option<PathBuf>) -> AppResult<LampState> {
        let lamp = Arc::new(Lamp::open(LampConfig::new(PortSelector::from_option(port)))?);
        let state = lamp.state();
        *self.lamp_slot().0.lock().map_err(|_| AppError::Lamp("the lamp slot was poisoned".into()))? = Some(lamp);
        Ok(state)
    }

    /// Starts following a lamp that may be plugged in later (at `port`, or
    /// the first found by USB id): the driver connects whenever it appears.
    /// The app calls this at start, so the lamp panel shows up by itself.
    pub fn lamp_watch(&self, port: Option<PathBuf>) -> AppResult<()> {
        let lamp = Arc::new(Lamp::watch(LampConfig::new(PortSelector::from_option(port)))?);
        *self.lamp_slot().0.lock().map_err(|_| AppError::Lamp("the lamp slot was poisoned".into()))? = Some(lamp);
        Ok(())
    }

    /// Forgets the connected lamp (its driver thread stops).
    pub fn lamp_disconnect(&self) {
        if let Ok(mut slot) = self.lamp_slot().0.lock() {
            slot.take();
        }
    }

    /// The connected lamp, if any.
    pub fn lamp(&self) -> Option<Arc<Lamp>> {
        self.lamp_slot().0.lock().ok().and_then(|s| s.clone())
    }

    /// What a lamp panel shows, when a lamp is connected.
    pub fn lamp_state(&self) -> Option<LampState> {
        self.lamp().map(|l| l.state())
    }

    /// Notices (events, connection and state changes) of the connected lamp.
    pub fn lamp_notices(&self) -> Option<flume::Receiver<LampNotice>> {
        self.lamp().map(|l| l.subscribe())
    }

    /// Acts out a recitation verdict on the lamp, if one is connected:
    /// celebrate on a pass, encourage otherwise. A lamp problem never fails
    /// the recitation; it is logged.
    pub fn lamp_react_to_verdict(&self, passed: bool) {
        if let Some(lamp) = self.lamp() {
            if let Err(e) = lamp.react_to_verdict(passed) {
                tracing::warn!("lamp could not react to the verdict: {e}");
            }
        }
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

impl Deskmate {
    /// The companion's tools for a new run: the built-in ones, plus the
    /// lamp's while a lamp is connected.
    pub(crate) fn chat_tools(&self) -> ToolSet {
        let mut tools = ToolSet::builtin(SearchConfig::from_env());
        if let Some(lamp) = self.lamp() {
            for spec in lamp.available_tools() {
                tools.add(Arc::new(LampTool { lamp: lamp.clone(), spec }));
            }
        }
        tools
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
        assert!(app.lamp_state().is_none());
        app.lamp_react_to_verdict(true); // no lamp: nothing happens, no error

        let link = dir.path().join("lamp0");
        let _sim = Simulator::start(SimulatorConfig::new(&link)).unwrap();
        let state = app.lamp_connect(Some(link)).unwrap();
        assert_eq!(state.connection, deskmate_lamp::ConnectionState::Connected);
        app.lamp_react_to_verdict(true);
        let s = app.lamp_state().unwrap();
        assert_eq!(s.expression, deskmate_lamp::Expression::Happy);
        app.lamp_disconnect();
        assert!(app.lamp_state().is_none());
    }

    #[test]
    fn watching_connects_when_the_lamp_appears() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let link = dir.path().join("lamp0");
        app.lamp_watch(Some(link.clone())).unwrap();
        assert_eq!(app.lamp_state().unwrap().connection, deskmate_lamp::ConnectionState::Disconnected);
        let _sim = Simulator::start(SimulatorConfig::new(&link)).unwrap();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while app.lamp_state().unwrap().connection != deskmate_lamp::ConnectionState::Connected {
            assert!(std::time::Instant::now() < deadline, "the watched lamp never connected");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }

    #[test]
    fn lamp_tools_are_offered_only_while_a_lamp_is_connected() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let lamp_tools = |app: &Deskmate| app.chat_tools().names().into_iter().filter(|n| n.starts_with("lamp_")).count();
        assert_eq!(lamp_tools(&app), 0);
        let link = dir.path().join("lamp0");
        let sim = Simulator::start(SimulatorConfig::new(&link)).unwrap();
        app.lamp_connect(Some(link)).unwrap();
        assert_eq!(lamp_tools(&app), 4);
        drop(sim); // unplugged
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while lamp_tools(&app) != 0 {
            assert!(std::time::Instant::now() < deadline, "lamp tools still offered after unplugging");
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
        tokio::task::spawn_blocking(move || app2.lamp_connect(Some(link))).await.unwrap().unwrap();
        let tools = app.chat_tools();
        let tool = tools.get("lamp_expression").unwrap();
        let ctx = ToolContext {
            sandbox: Arc::new(deskmate_agent::Sandbox::open(dir.path()).unwrap()),
            thread_id: "t".into(),
            tool_call_id: "c".into(),
        };
        let out = tool.call(ctx.clone(), serde_json::json!({"expression": "surprised"})).await;
        assert!(!out.is_error, "{}", out.content);
        assert_eq!(app.lamp_state().unwrap().expression, deskmate_lamp::Expression::Surprised);
        let bad = tool.call(ctx, serde_json::json!({"expression": "grumpy"})).await;
        assert!(bad.is_error);
    }

    #[test]
    fn connecting_to_nothing_is_a_plain_error() {
        let dir = tempfile::tempdir().unwrap();
        let app = Deskmate::open(Config::in_dir(dir.path())).unwrap();
        let err = app.lamp_connect(Some(dir.path().join("no-such-tty"))).unwrap_err().to_string();
        assert!(err.contains("lamp"), "{err}");
        assert!(app.lamp_state().is_none());
    }
}
