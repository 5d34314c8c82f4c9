//! A parent's actions on a child's data as a whole: what an export wrote and
//! what a deletion removed (`deskmate profiles export|delete --json`).
//! Serde only, no TypeScript yet (the window has no screen for them).

use serde::{Deserialize, Serialize};

/// How many rows of a child one table held.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableRowCount {
    pub table: String,
    pub rows: u64,
}

/// A child's data written to a zip file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChildExported {
    pub profile_id: String,
    pub name: String,
    /// The zip file written.
    pub file: String,
    /// Rows per table (every table that can hold a child's rows, empty ones too).
    pub tables: Vec<TableRowCount>,
    /// Files of the child's chat workspaces put in the zip.
    pub workspace_files: u64,
}

/// A child deleted with all their data.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChildDeleted {
    pub profile_id: String,
    pub name: String,
    /// Rows removed per table (tables that held none left out).
    pub tables: Vec<TableRowCount>,
    /// Folders and files removed from the data directory.
    pub paths_removed: Vec<String>,
    /// True when sync is on: the deletion waits in the outbox for the
    /// family's other devices.
    pub sent_to_family: bool,
}
