//! Scene workflows. Seed 003 ran each scene (recitation, chat, …) as an
//! explicit workflow inside an orchestrator; Deskmate keeps that shape. The
//! first scene is recitation practice: [`practice`] is its state machine —
//! pure, serializable, so the app can store it after every step and resume it
//! after a restart.

pub mod practice;

pub use practice::{Practice, PracticeEvent, PracticeState, TransitionError};
