//! What the UI needs to know at start (`app_status`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct AppStatus {
    pub first_run: bool,
    /// The UI language set last (`zh-CN` until one is chosen).
    pub locale: String,
    pub data_dir: String,
    pub schema_version: u32,
}
