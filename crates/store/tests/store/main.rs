//! The store's integration tests, one binary (fewer links on 2 cores): real
//! SQLite files in temporary folders. Each module is one former test file.

mod crash;
mod goals;
mod pin;
mod schema;
