//! Routines a parent designs for their child (seed 004's DAG workflows), run
//! by the orchestrator like any scene: [`validate`] refuses a graph that
//! could not run to an end (checked when it is saved), [`run`] walks it
//! node by node, saving the run after every node so a crash resumes where
//! it stopped, and [`supervisor`] is the other mode seed 004 has beside a
//! single agent: a model that hands the conversation to named agents until
//! it says it is done.
//!
//! The graph's types are in `deskmate_protocol::routine` (the CLI reads them
//! from a file, the editor draws them).

pub mod run;
pub mod supervisor;
pub mod validate;

pub use run::{run, RoutineWork, RunState, RunStatus};
pub use validate::{validate, PROBLEM_CODES};
