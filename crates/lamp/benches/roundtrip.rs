//! Benchmark: command round trips between the driver and the simulator over
//! a real pseudo-terminal (p50/p90/p99/max; target p99 < 10 ms), and how long
//! the driver takes to reconnect — and to restore the light — after a replug.
//!
//! Run: `cargo bench -p deskmate-lamp --bench roundtrip`
//! (optional arguments: number of round trips, number of replugs).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use deskmate_lamp::simulator::{Simulator, SimulatorConfig};
use deskmate_lamp::{ConnectionState, Lamp, LampConfig, LampNotice, Light, PortSelector};

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("benchmark failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

fn ms(d: Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

fn report(name: &str, mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    let p99 = percentile(&samples, 99.0);
    println!(
        "{name:<28} n={:<5} p50 {}  p90 {}  p99 {}  max {}",
        samples.len(),
        ms(percentile(&samples, 50.0)),
        ms(percentile(&samples, 90.0)),
        ms(p99),
        ms(samples.last().copied().unwrap_or_default()),
    );
    p99
}

fn wait_connected(rx: &flume::Receiver<LampNotice>, want: ConnectionState) -> Result<(), String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(LampNotice::Connection { state, .. }) if state == want => return Ok(()),
            Ok(_) => {}
            Err(_) => return Err(format!("no {want:?} notice within 10 s")),
        }
    }
}

fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1).filter(|a| !a.starts_with('-'));
    let round_trips: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(5000);
    let replugs: usize = args.next().map(|a| a.parse()).transpose()?.unwrap_or(30);

    let dir = tempfile::tempdir()?;
    let sim = Simulator::start(SimulatorConfig::new(dir.path().join("lamp0")))?;
    let mut config = LampConfig::new(PortSelector::Path(sim.link().to_path_buf()));
    // The default: a disconnected driver looks for its path every 50 ms.
    config.reconnect_interval = Duration::from_millis(50);
    let lamp = Lamp::open(config)?;

    for _ in 0..200 {
        lamp.ping()?;
    }

    let mut light_rtts = Vec::with_capacity(round_trips);
    for i in 0..round_trips {
        let light = Light::new((i % 101) as u8, 2700 + (i % 3800) as u16, 0)?;
        let start = Instant::now();
        lamp.set_light(light)?;
        light_rtts.push(start.elapsed());
    }
    // Every round trip really reached the lamp: it applied each light once.
    let applied = sim.stats().device.commands_applied;
    if applied != round_trips as u64 {
        return Err(
            format!("the simulator applied {applied} commands, expected {round_trips}").into(),
        );
    }
    let mut ping_rtts = Vec::with_capacity(round_trips);
    for _ in 0..round_trips {
        ping_rtts.push(lamp.ping()?);
    }

    let rx = lamp.subscribe();
    let restore_to = Light::new(37, 3300, 0)?;
    lamp.set_light(restore_to)?;
    let mut reconnects = Vec::with_capacity(replugs);
    let mut restores = Vec::with_capacity(replugs);
    for _ in 0..replugs {
        sim.unplug()?;
        wait_connected(&rx, ConnectionState::Disconnected)?;
        let start = Instant::now();
        sim.replug()?;
        wait_connected(&rx, ConnectionState::Connected)?;
        reconnects.push(start.elapsed());
        while sim.state().is_none_or(|s| s.light != restore_to) {
            if start.elapsed() > Duration::from_secs(10) {
                return Err("light not restored within 10 s".into());
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        restores.push(start.elapsed());
    }

    println!(
        "lamp round trip over a pseudo-terminal (driver ⇄ simulator, {} cores)",
        num_cpus()
    );
    let p99 = report("set_light round trip", light_rtts);
    report("heartbeat round trip", ping_rtts);
    report("replug → connected", reconnects);
    report("replug → light restored", restores);
    let stats = lamp.stats();
    println!(
        "retries {}  timeouts {}  bad frames {}",
        stats.retries, stats.timeouts, stats.bad_frames
    );
    println!(
        "target p99 < 10 ms: {}",
        if p99 < Duration::from_millis(10) {
            "met"
        } else {
            "MISSED"
        }
    );
    Ok(())
}

fn num_cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}
