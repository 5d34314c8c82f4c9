//! What Deskmate's tests share, so each fixture is written once: a family
//! with a child and 静夜思 ([`family`]), a microphone that is a FIFO read by
//! ALSA ([`mic`]), where the dev clips and models are ([`clips`]), and the
//! harness for running the real `deskmate` binary ([`cli`]), a test run alone
//! in a process of its own ([`process`]). A dev-dependency
//! only; nothing here is shipped.
//!
//! Fixtures that cannot be set up fail loudly with the fix in the message —
//! a test never passes because its input was missing.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod cli;
pub mod clips;
pub mod family;
pub mod mic;
pub mod photo;
pub mod postgres;
pub mod process;
