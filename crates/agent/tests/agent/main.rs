//! The agent's integration tests, one binary (fewer links on 2 cores): a
//! store in a temporary folder, the scripted model server on loopback, runs
//! driven to their end. Each module is one former test file.

mod approvals;
mod common;
mod persist;
mod plugin_tools;
mod runs;
mod sandbox_escapes;
mod sandbox_race;
mod special_files;
mod subagents;
mod summarize;
