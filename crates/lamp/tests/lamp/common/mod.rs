//! Shared setup for the lamp's integration tests: a simulator on a real
//! pseudo-terminal in a temporary folder, and a driver configured to notice
//! things quickly.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::Path;
use std::time::{Duration, Instant};

use deskmate_lamp::simulator::{FaultPlan, Simulator, SimulatorConfig};
use deskmate_lamp::{Lamp, LampConfig, LampNotice, PortSelector};

/// The longest any test waits for something that should happen.
pub const PATIENCE: Duration = Duration::from_secs(10);

pub fn simulator(dir: &Path, faults: FaultPlan) -> Simulator {
    let mut config = SimulatorConfig::new(dir.join("lamp0"));
    config.faults = faults;
    Simulator::start(config).expect("simulator starts")
}

pub fn config(link: &Path) -> LampConfig {
    let mut config = LampConfig::new(PortSelector::Path(link.to_path_buf()));
    config.reconnect_interval = Duration::from_millis(20);
    config
}

pub fn open(sim: &Simulator) -> Lamp {
    Lamp::open(config(sim.link())).expect("driver connects to the simulator")
}

/// Waits until `check` holds; panics with `what` if it never does.
pub fn wait_for(what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    while start.elapsed() < PATIENCE {
        if check() {
            return;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("timed out waiting for {what}");
}

/// The next notice that `pick` accepts, skipping others.
pub fn next_notice<T>(
    rx: &flume::Receiver<LampNotice>,
    mut pick: impl FnMut(&LampNotice) -> Option<T>,
) -> T {
    let deadline = Instant::now() + PATIENCE;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let notice = rx.recv_timeout(left).expect("a notice arrives in time");
        if let Some(found) = pick(&notice) {
            return found;
        }
    }
}
