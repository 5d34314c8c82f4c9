//! Today's learning plan for the child's home (the tasks from due reviews,
//! unfinished practice and the parent's goals, each done or not by today's
//! attempts, `deskmate_orchestrator::plan`) and the goals a parent sets in
//! the parent area, by kind and number or in words (每天背一首新诗).

use deskmate_app::orchestrator::plan::Plan;
use deskmate_app::store::{Goal, GoalKind};
use deskmate_app::Deskmate;
use tauri::State;

use super::{blocking, CmdResult};

#[tauri::command]
pub async fn plan_today(app: State<'_, Deskmate>, profile_id: String) -> CmdResult<Plan> {
    blocking(&app, move |app| app.plan_today(&profile_id)).await
}

#[tauri::command]
pub async fn goals_list(app: State<'_, Deskmate>, profile_id: String) -> CmdResult<Vec<Goal>> {
    blocking(&app, move |app| app.goals(&profile_id)).await
}

#[tauri::command]
pub async fn goal_set(
    app: State<'_, Deskmate>,
    profile_id: String,
    kind: GoalKind,
    target: u32,
) -> CmdResult<Goal> {
    blocking(&app, move |app| app.set_goal(&profile_id, kind, target)).await
}

#[tauri::command]
pub async fn goal_set_words(
    app: State<'_, Deskmate>,
    profile_id: String,
    words: String,
) -> CmdResult<Goal> {
    blocking(&app, move |app| app.set_goal_in_words(&profile_id, &words)).await
}

#[tauri::command]
pub async fn goal_remove(
    app: State<'_, Deskmate>,
    profile_id: String,
    kind: GoalKind,
) -> CmdResult<()> {
    blocking(&app, move |app| app.remove_goal(&profile_id, kind)).await
}
