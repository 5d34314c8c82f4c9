//! A file a front end hands over as bytes: the window's pickers and
//! drag-and-drop read the file and send it base64-encoded (a webview has no
//! path to give). A chat message's attachments and the documents a parent
//! adds to a knowledge base travel this way; the core checks each one.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

/// One file: its name (any folders in it are dropped) and its bytes in base64.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct FileUpload {
    pub name: String,
    pub data_base64: String,
}
