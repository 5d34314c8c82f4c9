//! Today's learning plan for the child's home: the tasks from due reviews,
//! unfinished practice and the parent's goals, each done or not by today's
//! attempts (`deskmate_orchestrator::plan`).

use deskmate_app::orchestrator::plan::Plan;
use deskmate_app::Deskmate;
use tauri::State;

use super::{blocking, CmdResult};

#[tauri::command]
pub async fn plan_today(app: State<'_, Deskmate>, profile_id: String) -> CmdResult<Plan> {
    blocking(&app, move |app| app.plan_today(&profile_id)).await
}
