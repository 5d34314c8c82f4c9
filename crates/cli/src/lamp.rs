//! `deskmate lamp`: find, drive and watch the desk lamp, or stand in for it
//! with a simulator on a pseudo-terminal.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::builder::PossibleValuesParser;
use clap::{Args, Subcommand};
use deskmate_app::events as wire;
use deskmate_app::Deskmate;
use deskmate_lamp::{
    ArmPose, Button, Card, DeviceEvent, Expression, Gesture, Lamp, LampConfig, LampError,
    LampNotice, LampState, Light, PortSelector, ProjectorCommand, USB_PID, USB_VID,
};

use deskmate_protocol::lamp::{LampStatus, PanelAction, PanelPressed};

use crate::output;

#[derive(Args)]
pub struct LampArgs {
    /// The lamp's serial port or the simulator's link (default: find the lamp by its USB ids).
    #[arg(long, global = true)]
    port: Option<PathBuf>,
    #[command(subcommand)]
    cmd: LampCmd,
}

#[derive(Subcommand)]
pub enum LampCmd {
    /// List lamps plugged in over USB.
    List {
        #[arg(long)]
        json: bool,
    },
    /// Connect, then show the lamp's identity and what it shows now.
    Status {
        #[arg(long)]
        json: bool,
    },
    /// Set the light: brightness 0–100 %.
    Light {
        brightness: u8,
        /// Colour temperature, 2700–6500 K (default: keep the lamp's).
        #[arg(long)]
        temp: Option<u16>,
        /// Fade time in milliseconds.
        #[arg(long, default_value_t = 500)]
        transition: u16,
    },
    /// Show a face on the lamp's screen.
    Face {
        #[arg(value_parser = PossibleValuesParser::new(Expression::NAMES))]
        name: String,
    },
    /// Move the lamp's arm.
    Gesture {
        #[arg(value_parser = PossibleValuesParser::new(Gesture::NAMES))]
        name: String,
        /// Speed, 1–100 % of the arm's top speed.
        #[arg(long, default_value_t = 60)]
        speed: u8,
    },
    /// Project a card (a title and lines), or turn the projector off.
    Project {
        #[arg(long, required_unless_present = "off")]
        title: Option<String>,
        /// A line of the card; repeat for more lines.
        #[arg(long = "line")]
        lines: Vec<String>,
        #[arg(long, conflicts_with_all = ["title", "lines"])]
        off: bool,
    },
    /// Print the lamp's events, one JSON object per line, until Ctrl-C.
    Events {
        /// Exit after this many lamp events.
        #[arg(long)]
        count: Option<u64>,
    },
    /// Press a button on the lamp's panel, as the window's virtual panel does:
    /// the app acts on it (start records in the open voice practice, stop
    /// ends the recording; touch and presence are only shown). --port is not
    /// used: the press goes to this process's app, as a panel press does
    /// when no simulator is hosted.
    Press {
        #[arg(value_parser = PossibleValuesParser::new(["start", "stop", "touch", "presence-on", "presence-off"]))]
        button: String,
        /// Resume this child's unfinished practice first (id or name), so
        /// the press acts on it as on the practice open on screen.
        #[arg(long)]
        profile: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Stand in for the lamp: open a pseudo-terminal, print its path, serve until killed.
    /// Type `press start`, `press stop`, `touch`, `presence on|off`, `unplug`, `replug` on stdin.
    Simulate {
        /// Misbehave on purpose (repeatable).
        #[arg(long = "fault", value_parser = PossibleValuesParser::new(["drop", "crc", "slow", "flap"]))]
        faults: Vec<String>,
        /// The stable path to give `--port` (default: lamp-simulator in the data directory).
        #[arg(long)]
        link: Option<PathBuf>,
    },
}

pub fn run(app: &Deskmate, args: LampArgs) -> anyhow::Result<ExitCode> {
    run_command(app, args).map_err(one_shot_words)
}

/// The driver's words for a lost link promise that it reconnects by itself,
/// which is true in the app; a one-shot command has ended by then, so it
/// says what to do instead.
fn one_shot_words(e: anyhow::Error) -> anyhow::Error {
    match e.downcast_ref::<LampError>() {
        Some(LampError::LinkLost { command }) => anyhow::anyhow!(
            "the link to the lamp was lost during {command}; check its cable and run the command again"
        ),
        Some(LampError::Disconnected { port }) => anyhow::anyhow!(
            "the lamp is disconnected ({port}); plug it back in and run the command again"
        ),
        _ => e,
    }
}

fn run_command(app: &Deskmate, args: LampArgs) -> anyhow::Result<ExitCode> {
    let port = PortSelector::from_option(args.port);
    match args.cmd {
        LampCmd::List { json } => list(json)?,
        LampCmd::Status { json } => status(port, json)?,
        LampCmd::Light {
            brightness,
            temp,
            transition,
        } => {
            // Check the values before looking for the lamp.
            Light::new(
                brightness,
                temp.unwrap_or(deskmate_lamp::tools::DEFAULT_TEMPERATURE_K),
                transition,
            )?;
            let lamp = connect(port)?;
            let temp = temp.unwrap_or(lamp.state().light.temperature_k);
            let light = Light::new(brightness, temp, transition)?;
            lamp.set_light(light)?;
            println!("light {} % at {} K", light.brightness, light.temperature_k);
        }
        LampCmd::Face { name } => {
            let expression: Expression = name.parse()?;
            connect(port)?.show_expression(expression)?;
            println!("face {expression}");
        }
        LampCmd::Gesture { name, speed } => {
            let gesture: Gesture = name.parse()?;
            connect(port)?.gesture(gesture, speed)?;
            println!("arm {gesture} at {speed} %");
        }
        LampCmd::Project { title, lines, off } => {
            let lamp = connect(port)?;
            match title {
                Some(title) if !off => {
                    let card = Card::new(title, lines)?;
                    let said =
                        format!("projecting \"{}\" ({} lines)", card.title, card.lines.len());
                    lamp.show_card(card)?;
                    println!("{said}");
                }
                _ => {
                    lamp.projector(ProjectorCommand::Off)?;
                    println!("projector off");
                }
            }
        }
        LampCmd::Events { count } => events(port, count)?,
        LampCmd::Press {
            button,
            profile,
            json,
        } => return press(app, &button, profile.as_deref(), json),
        LampCmd::Simulate { faults, link } => {
            let link = link.unwrap_or_else(|| app.config().data_dir.join("lamp-simulator"));
            simulate(link, &faults)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// `lamp press`: one press on the panel; a recording it starts is followed
/// to its verdict, as `practice record` does.
fn press(
    app: &Deskmate,
    button: &str,
    profile: Option<&str>,
    json: bool,
) -> anyhow::Result<ExitCode> {
    let event = match button {
        "start" => DeviceEvent::Button(Button::Start),
        "stop" => DeviceEvent::Button(Button::Stop),
        "touch" => DeviceEvent::Touch,
        "presence-on" => DeviceEvent::Presence(true),
        "presence-off" => DeviceEvent::Presence(false),
        other => anyhow::bail!(
            "no lamp button {other:?} (start, stop, touch, presence-on, presence-off)"
        ),
    };
    if let Some(profile) = profile {
        let profile = app.find_profile(profile)?;
        if app.practice().current(&profile.id)?.is_none() {
            anyhow::bail!("{} has no practice open", profile.name);
        }
    }
    // Subscribed before the press, so a recording's progress is not missed.
    let stream = app.events();
    let pressed = PanelPressed {
        event: wire::device_event(event),
        action: wire::panel_action(app.lamp().panel_press(event)?),
    };
    if json {
        output::json(&pressed)?;
    } else {
        let said = match &pressed.action {
            PanelAction::ThroughLamp => "pressed on the hosted lamp simulator".to_string(),
            PanelAction::RecordingStarted { practice_id, .. } => {
                format!(
                    "recording in practice {practice_id}… (it ends when the child falls silent)"
                )
            }
            PanelAction::RecordingStopped { practice_id, .. } => {
                format!("recording stopped in practice {practice_id}")
            }
            PanelAction::Failed { error, .. } => format!("could not record: {error}"),
            PanelAction::Ignored { why } => format!("nothing to do: {why}"),
        };
        println!("{button}: {said}");
    }
    if let PanelAction::RecordingStarted { task_id, .. } = &pressed.action {
        return crate::practice::follow_to_verdict(&stream, task_id, json);
    }
    Ok(ExitCode::SUCCESS)
}

fn connect(port: PortSelector) -> anyhow::Result<Lamp> {
    Ok(Lamp::open(LampConfig::new(port))?)
}

fn list(json: bool) -> anyhow::Result<()> {
    let lamps = deskmate_lamp::list_lamps()?;
    if json {
        return output::json(&lamps);
    }
    if lamps.is_empty() {
        println!(
            "no lamp found over USB ({USB_VID:04x}:{USB_PID:04x}); plug it in, or start `deskmate lamp simulate` and pass --port PATH"
        );
    }
    for l in lamps {
        let serial = l
            .serial_number
            .map(|s| format!("  serial {s}"))
            .unwrap_or_default();
        let product = l.product.unwrap_or_else(|| "lamp".into());
        println!("{}  {product}{serial}", l.port);
    }
    Ok(())
}

fn status(port: PortSelector, json: bool) -> anyhow::Result<()> {
    let lamp = connect(port)?;
    lamp.query_state()?;
    let state = lamp.state();
    let Some(device) = state.device.clone() else {
        anyhow::bail!("the lamp connected without saying what it is");
    };
    if json {
        // The protocol's shapes, as the window's lamp panel receives them.
        let state = wire::lamp_state(state);
        let device = wire::device_info(device);
        return output::json(&LampStatus { device, state });
    }
    println!(
        "lamp       {}, firmware {}, serial {} (protocol {})",
        device.model, device.firmware, device.serial, device.protocol
    );
    println!("port       {}", state.port.clone().unwrap_or_default());
    let parts: Vec<String> = device
        .capabilities
        .iter()
        .map(|c| {
            serde_json::to_string(c)
                .unwrap_or_default()
                .replace('"', "")
        })
        .collect();
    println!("parts      {}", parts.join(", "));
    print_state(&state);
    Ok(())
}

fn print_state(state: &LampState) {
    println!(
        "light      {} % at {} K",
        state.light.brightness, state.light.temperature_k
    );
    println!("face       {}", state.expression);
    match state.arm {
        ArmPose::Rest => println!("arm        at rest"),
        ArmPose::Moving { gesture, speed } => println!("arm        {gesture} at {speed} %"),
    }
    match (&state.projector.card, state.projector.on) {
        (_, false) => println!("projector  off"),
        (None, true) => println!("projector  on, no card"),
        (Some(card), true) => {
            println!("projector  \"{}\" ({} lines)", card.title, card.lines.len())
        }
    }
}

fn events(port: PortSelector, count: Option<u64>) -> anyhow::Result<()> {
    let lamp = connect(port)?;
    let notices = lamp.subscribe();
    // The subscription starts after the connection: say so, so a reader
    // knows events from now on will be seen.
    let connected = LampNotice::Connection {
        state: lamp.state().connection,
        port: lamp.state().port,
        at_unix_ms: deskmate_lamp::state::now_unix_ms(),
    };
    // Printed in the protocol's shape: the window's `lamp://notice` payload.
    println!("{}", serde_json::to_string(&wire::lamp_notice(connected))?);
    let mut seen = 0u64;
    while count.is_none_or(|n| seen < n) {
        let notice = notices.recv().context("the lamp driver stopped")?;
        match &notice {
            LampNotice::Event { .. } => seen += 1,
            LampNotice::Connection { .. } => {}
            LampNotice::State { .. } => continue,
        }
        println!("{}", serde_json::to_string(&wire::lamp_notice(notice))?);
    }
    Ok(())
}

#[cfg(unix)]
fn simulate(link: PathBuf, faults: &[String]) -> anyhow::Result<()> {
    use std::io::BufRead;

    use deskmate_lamp::simulator::{Fault, FaultPlan, Simulator, SimulatorConfig};

    let faults = faults
        .iter()
        .map(|f| f.parse::<Fault>())
        .collect::<Result<Vec<_>, _>>()?;
    let mut config = SimulatorConfig::new(&link);
    config.faults = FaultPlan::from_faults(&faults);
    config.activity = Some(Box::new(|line: &str| eprintln!("lamp: {line}")));
    let sim = Simulator::start(config)?;
    println!("{}", sim.link().display());
    // Byte lines, so one line that is not UTF-8 is that line's error and the
    // commands after it still work.
    for line in std::io::stdin().lock().split(b'\n') {
        let Ok(line) = line else { break };
        let result = match std::str::from_utf8(&line) {
            Ok(text) => simulator_command(&sim, text.trim()),
            Err(_) => Err(anyhow::anyhow!(
                "a simulator command is plain text; that line was not UTF-8"
            )),
        };
        if let Err(e) = result {
            eprintln!("lamp: {e}");
        }
    }
    // Standard input closed: keep serving until killed.
    loop {
        std::thread::park();
    }
}

#[cfg(unix)]
fn simulator_command(sim: &deskmate_lamp::simulator::Simulator, line: &str) -> anyhow::Result<()> {
    use deskmate_lamp::{Button, DeviceEvent};

    let words: Vec<&str> = line.split_whitespace().collect();
    match words.as_slice() {
        [] => {}
        ["press", button] => sim.raise(DeviceEvent::Button(button.parse::<Button>()?))?,
        ["touch"] => sim.raise(DeviceEvent::Touch)?,
        ["presence", "on"] => sim.raise(DeviceEvent::Presence(true))?,
        ["presence", "off"] => sim.raise(DeviceEvent::Presence(false))?,
        ["unplug"] => sim.unplug()?,
        ["replug"] => {
            sim.replug()?;
        }
        ["state"] => eprintln!("lamp: {}", serde_json::to_string(&sim.state())?),
        _ => anyhow::bail!(
            "unknown simulator command \"{line}\"; try: press start, press stop, touch, presence on, presence off, unplug, replug, state"
        ),
    }
    Ok(())
}

#[cfg(not(unix))]
fn simulate(_link: PathBuf, _faults: &[String]) -> anyhow::Result<()> {
    anyhow::bail!("the lamp simulator needs a Unix pseudo-terminal; run it on Linux or macOS")
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn a_one_shot_command_does_not_promise_to_reconnect() {
        for e in [
            LampError::LinkLost { command: "light" },
            LampError::Disconnected {
                port: "/dev/ttyACM0".into(),
            },
        ] {
            let said = one_shot_words(anyhow::Error::from(e)).to_string();
            assert!(said.contains("run the command again"), "{said}");
            assert!(!said.contains("by itself"), "{said}");
        }
        let other = one_shot_words(anyhow::anyhow!("no lamp")).to_string();
        assert_eq!(other, "no lamp");
    }
}
