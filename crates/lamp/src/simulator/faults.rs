//! The simulator's fault modes: the ways a real USB lamp misbehaves, made
//! deterministic so tests can count on them.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::LampError;

/// One way for the simulated lamp to misbehave.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Fault {
    /// Ignore some frames the host sends, as if lost on the line.
    Drop,
    /// Send some answers with a wrong CRC, as if garbled on the line.
    Crc,
    /// Answer late.
    Slow,
    /// Unplug and replug itself over and over.
    Flap,
}

impl Fault {
    pub const NAMES: [&'static str; 4] = ["drop", "crc", "slow", "flap"];
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Fault::Drop => "drop",
            Fault::Crc => "crc",
            Fault::Slow => "slow",
            Fault::Flap => "flap",
        })
    }
}

impl FromStr for Fault {
    type Err = LampError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s.trim().to_ascii_lowercase().as_str() {
            "drop" => Ok(Fault::Drop),
            "crc" => Ok(Fault::Crc),
            "slow" => Ok(Fault::Slow),
            "flap" => Ok(Fault::Flap),
            other => Err(LampError::Invalid(format!(
                "unknown fault \"{other}\"; choose one of: {}",
                Fault::NAMES.join(", ")
            ))),
        }
    }
}

/// Exactly how the simulated lamp misbehaves. The default misbehaves not at all.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FaultPlan {
    /// Ignore every n-th frame received from the host.
    pub drop_every: Option<u32>,
    /// Send every n-th frame with a wrong CRC.
    pub corrupt_every: Option<u32>,
    /// Hold every answer this long before sending it.
    pub answer_delay: Option<Duration>,
    /// Stay plugged for `up`, then unplugged for `down`, and again.
    pub flap: Option<Flap>,
}

/// The rhythm of the flap fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Flap {
    pub up: Duration,
    pub down: Duration,
}

impl FaultPlan {
    /// Default settings for `deskmate lamp simulate --fault …`: every third
    /// frame dropped or garbled, answers 80 ms late, plugged 2 s then
    /// unplugged 0.5 s.
    pub fn from_faults(faults: &[Fault]) -> Self {
        let mut plan = FaultPlan::default();
        for fault in faults {
            match fault {
                Fault::Drop => plan.drop_every = Some(3),
                Fault::Crc => plan.corrupt_every = Some(3),
                Fault::Slow => plan.answer_delay = Some(Duration::from_millis(80)),
                Fault::Flap => {
                    plan.flap = Some(Flap {
                        up: Duration::from_secs(2),
                        down: Duration::from_millis(500),
                    })
                }
            }
        }
        plan
    }

    /// True when the `count`-th received frame (counting from 1) is to be dropped.
    pub fn drops(&self, count: u64) -> bool {
        every(self.drop_every, count)
    }

    /// True when the `count`-th sent frame (counting from 1) is to be garbled.
    pub fn corrupts(&self, count: u64) -> bool {
        every(self.corrupt_every, count)
    }
}

fn every(n: Option<u32>, count: u64) -> bool {
    match n {
        Some(n) if n > 0 => count.is_multiple_of(u64::from(n)),
        _ => false,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn faults_parse_and_plan() {
        let faults: Vec<Fault> = ["drop", "CRC", "slow", "flap"]
            .iter()
            .map(|s| s.parse().unwrap())
            .collect();
        let plan = FaultPlan::from_faults(&faults);
        assert!(plan.drops(3) && !plan.drops(4) && plan.drops(6));
        assert!(plan.corrupts(3) && !plan.corrupts(1));
        assert_eq!(plan.answer_delay, Some(Duration::from_millis(80)));
        assert!(plan.flap.is_some());
        assert!("jam".parse::<Fault>().is_err());
        assert!(!FaultPlan::default().drops(3));
    }
}
