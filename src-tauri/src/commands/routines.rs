//! Routine commands (issue 21) for the parent's editor: the saved routines,
//! the built-in examples, what nodes can name (the team, the study tools),
//! a graph checked without saving (the core's validator, on every edit),
//! save and delete, and a run for a child whose node events stream to the
//! window over a Tauri channel as they happen — the same calls as
//! `deskmate workflows`.

use deskmate_app::Deskmate;
use deskmate_protocol::routine::{
    Routine, RoutineEvent, RoutineParts, RoutineProblem, RoutineRunView,
};
use tauri::ipc::Channel;
use tauri::State;

use super::{blocking, wire, CmdResult};

#[tauri::command]
pub async fn routines_list(app: State<'_, Deskmate>) -> CmdResult<Vec<Routine>> {
    blocking(&app, |app| app.routines()).await
}

#[tauri::command]
pub async fn routine_get(app: State<'_, Deskmate>, name: String) -> CmdResult<Routine> {
    blocking(&app, move |app| app.routine(&name)).await
}

/// The built-in routines to start from (not saved until the parent saves).
#[tauri::command]
pub async fn routine_examples(app: State<'_, Deskmate>) -> CmdResult<Vec<Routine>> {
    blocking(&app, |app| app.routine_examples()).await
}

/// The agents and study tools a node can name.
#[tauri::command]
pub async fn routine_parts(app: State<'_, Deskmate>) -> CmdResult<RoutineParts> {
    blocking(&app, |app| Ok(app.routine_parts())).await
}

/// Every problem with `routine` (none: it can be saved); nothing is saved.
#[tauri::command]
pub async fn routine_check(
    app: State<'_, Deskmate>,
    routine: Routine,
) -> CmdResult<Vec<RoutineProblem>> {
    blocking(&app, move |app| Ok(app.check_routine(&routine))).await
}

/// Saves a new routine (`update`: replaces the one of its name); one with
/// problems is refused with all of them.
#[tauri::command]
pub async fn routine_save(
    app: State<'_, Deskmate>,
    routine: Routine,
    update: bool,
) -> CmdResult<Routine> {
    blocking(&app, move |app| app.save_routine(&routine, update)).await
}

#[tauri::command]
pub async fn routine_delete(app: State<'_, Deskmate>, name: String) -> CmdResult<()> {
    blocking(&app, move |app| app.delete_routine(&name)).await
}

/// The runs of `routine` (all when absent), newest first.
#[tauri::command]
pub async fn routine_runs(
    app: State<'_, Deskmate>,
    routine: Option<String>,
) -> CmdResult<Vec<RoutineRunView>> {
    blocking(&app, move |app| app.routine_runs(routine.as_deref())).await
}

/// Runs the saved routine `name` for the child `profile_id` on `input`;
/// each node's start, output and end arrive on `on_event` as they happen.
/// Resolves with the run when it finishes, fails or waits.
#[tauri::command]
pub async fn routine_run(
    app: State<'_, Deskmate>,
    name: String,
    profile_id: String,
    input: String,
    on_event: Channel<RoutineEvent>,
) -> CmdResult<RoutineRunView> {
    app.run_routine(&name, &profile_id, &input, &mut sender(on_event))
        .await
        .map_err(wire)
}

/// Goes on with the run `run_id` (it waited for a recitation, or was cut
/// short); its node events arrive on `on_event`.
#[tauri::command]
pub async fn routine_resume(
    app: State<'_, Deskmate>,
    run_id: String,
    on_event: Channel<RoutineEvent>,
) -> CmdResult<RoutineRunView> {
    app.resume_routine_run(&run_id, &mut sender(on_event))
        .await
        .map_err(wire)
}

/// Sends each event to the window; a window that closed misses the rest,
/// and the run goes on (it is saved node by node).
fn sender(channel: Channel<RoutineEvent>) -> impl FnMut(RoutineEvent) + Send {
    move |event| {
        if let Err(e) = channel.send(event) {
            tracing::debug!("a routine event did not reach the window: {e}");
        }
    }
}
