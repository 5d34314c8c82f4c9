//! Scene workflows. Seed 003 ran each scene (recitation, chat, …) as an
//! explicit workflow inside an orchestrator; Deskmate keeps that shape. The
//! first scene is recitation practice: [`practice`] is its state machine —
//! pure, serializable, so it can be stored after every step and resumed
//! after a restart — and [`scene`] runs it: the runner that checks and
//! records each attempt as a task, the microphone with live partials behind
//! the [`scene::Ears`] seam, the lamp's buttons, and what the scene hands off
//! to the app behind [`scene::Stage`].

pub mod chat;
pub mod entry;
pub mod guardrails;
pub mod homework;
pub mod intent_model;
pub mod limits;
pub mod memory;
pub mod plan;
pub mod practice;
pub mod router;
pub mod routine;
pub mod safety;
pub mod scene;
pub mod trace;
pub mod usage;

pub use practice::{Practice, PracticeEvent, PracticeState, TransitionError};
pub use scene::{PracticeScene, SceneError, SceneEvent, Stage};
