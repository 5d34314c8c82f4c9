//! The `deskmate` command's integration tests, one binary (one link on two
//! cores instead of one per file): each module drives the real binary
//! through `deskmate_testkit::cli`, with a data directory of its own.

mod approvals;
mod chat;
mod events;
mod foundation;
mod lamp;
mod plan;
mod practice;
mod probe;
mod recite;
mod say;
mod settings;
mod speech;
mod team;
