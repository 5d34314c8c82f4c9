//! A parent's actions on a child's data as a whole: what an export wrote and
//! what a deletion removed (`deskmate profiles export|delete --json`), and
//! the answer to a question about a child's progress with its chart
//! (`deskmate ask --json`), and a weekly report saved to keep (`deskmate report
//! weekly --save`, TypeScript for the Reports screen).

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

/// The kind of chart an answer is drawn as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChartKind {
    Line,
    Bar,
    Pie,
}

/// One series of a chart: a value per label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ChartSeries {
    pub name: String,
    pub values: Vec<f64>,
}

/// A small chart spec a front end draws: labels on one axis (or the
/// slices of a pie) and one or more series.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chart {
    pub kind: ChartKind,
    pub title: String,
    pub labels: Vec<String>,
    pub series: Vec<ChartSeries>,
}

/// The answer to a parent's question about a child's progress
/// (`deskmate ask --json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProgressAnswer {
    /// Which built-in question answered it (`accuracy_this_week`, …), or
    /// `model` when the configured model wrote its own queries.
    pub question: String,
    pub text: String,
    pub chart: Option<Chart>,
}

/// What a report to keep is written as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum KeepsakeFormat {
    Png,
    Pdf,
}

/// One of the child's goals held against a week.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct GoalOutcome {
    /// `reviews_per_week` or `new_per_day`.
    pub kind: String,
    /// What the week needed (a daily goal times seven).
    pub target: u32,
    pub done: u32,
    pub met: bool,
}

/// A weekly report written as a picture or a PDF
/// (`deskmate report weekly --save FILE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
pub struct KeepsakeWritten {
    pub profile_id: String,
    pub name: String,
    /// The Monday of the week.
    pub week_of: String,
    pub file: String,
    pub format: KeepsakeFormat,
    pub bytes: u64,
    /// True when every goal of the week was met: the page is a certificate.
    pub certificate: bool,
    pub goals: Vec<GoalOutcome>,
}
