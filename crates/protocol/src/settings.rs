//! App-wide settings as front ends read and write them.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// The window's language (`deskmate settings locale --json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct LocaleSetting {
    /// `zh-CN` or `en`.
    pub locale: String,
}
