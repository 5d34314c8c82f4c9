//! The lamp's integration tests, one binary (fewer links on 2 cores): a
//! simulator on a real pseudo-terminal, the driver over it. Each module is one
//! former test file.

mod common;
mod decoder_fuzz;
mod faults;
mod hotplug;
mod roundtrip;
