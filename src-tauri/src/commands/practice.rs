//! Recitation practice commands: due reviews, the practice workflow (start,
//! submit, retry, leave, resume), and the parent's reports. A submission
//! returns a task id at once; its progress arrives as `practice://task`
//! events, so long checks never freeze the window.

use std::sync::Arc;

use chrono::{NaiveDate, Utc};
use deskmate_app::practice::{PracticeView, TaskEvent, TaskSink};
use deskmate_app::voice::LevelSink;
use deskmate_app::{AppError, Deskmate};
use deskmate_recite::report::{Report, ReportType};
use deskmate_recite::schedule::DueReview;
use deskmate_recite::Mode;
use serde::Serialize;
use tauri::{AppHandle, Emitter, State};

use super::{blocking, CmdResult};

pub const TASK_EVENT: &str = "practice://task";
pub const LEVEL_EVENT: &str = "practice://level";

#[derive(Serialize)]
pub struct TaskId {
    task_id: String,
}

fn recite_error(e: impl std::fmt::Display) -> AppError {
    AppError::Config(e.to_string())
}

fn task_sink(handle: AppHandle) -> TaskSink {
    Arc::new(move |event: TaskEvent| {
        if let Err(e) = handle.emit(TASK_EVENT, &event) {
            tracing::warn!("cannot send practice progress to the window: {e}");
        }
    })
}

#[tauri::command]
pub async fn reviews_due(app: State<'_, Deskmate>, profile_id: String) -> CmdResult<Vec<DueReview>> {
    blocking(&app, move |app| app.reviews_due(&profile_id, Utc::now()).map_err(recite_error)).await
}

#[tauri::command]
pub async fn practice_start(
    app: State<'_, Deskmate>,
    profile_id: String,
    material_id: String,
    mode: Mode,
) -> CmdResult<PracticeView> {
    blocking(&app, move |app| app.practice_start(&profile_id, &material_id, mode)).await
}

#[tauri::command]
pub async fn practice_current(app: State<'_, Deskmate>, profile_id: String) -> CmdResult<Option<PracticeView>> {
    blocking(&app, move |app| app.practice_current(&profile_id)).await
}

#[tauri::command]
pub async fn practice_submit_text(
    handle: AppHandle,
    app: State<'_, Deskmate>,
    practice_id: String,
    text: String,
) -> CmdResult<TaskId> {
    let sink = task_sink(handle);
    blocking(&app, move |app| app.practice_submit_text(&practice_id, text, sink)).await.map(|task_id| TaskId { task_id })
}

/// The level meter's payload on `practice://level`.
#[derive(Clone, Serialize)]
struct LevelEvent<'a> {
    practice_id: &'a str,
    level: f32,
}

/// Opens the microphone; the end of speech (or `practice_record_stop`) starts
/// the check, whose progress arrives as `practice://task` events.
#[tauri::command]
pub async fn practice_record_start(handle: AppHandle, app: State<'_, Deskmate>, practice_id: String) -> CmdResult<()> {
    let sink = task_sink(handle.clone());
    let levels: LevelSink = Arc::new(move |practice_id: &str, level: f32| {
        // A dropped meter reading is harmless; the next one follows in 50 ms.
        let _ = handle.emit(LEVEL_EVENT, LevelEvent { practice_id, level });
    });
    blocking(&app, move |app| app.practice_record_start(&practice_id, levels, sink)).await
}

#[derive(Serialize)]
pub struct StopAnswer {
    /// The check's task id arrives with its first `practice://task` event.
    task_id: Option<String>,
}

#[tauri::command]
pub async fn practice_record_stop(app: State<'_, Deskmate>, practice_id: String) -> CmdResult<StopAnswer> {
    blocking(&app, move |app| app.practice_record_stop(&practice_id)).await.map(|()| StopAnswer { task_id: None })
}

#[tauri::command]
pub async fn practice_retry(app: State<'_, Deskmate>, practice_id: String) -> CmdResult<PracticeView> {
    blocking(&app, move |app| app.practice_retry(&practice_id)).await
}

#[tauri::command]
pub async fn practice_leave(app: State<'_, Deskmate>, practice_id: String) -> CmdResult<()> {
    blocking(&app, move |app| app.practice_leave(&practice_id)).await
}

#[tauri::command]
pub async fn report(app: State<'_, Deskmate>, profile_id: String, kind: String, date: String) -> CmdResult<Report> {
    let report_type = match kind.as_str() {
        "daily" => ReportType::Daily,
        "weekly" => ReportType::Weekly,
        other => return Err(format!("a report is daily or weekly, not {other:?}")),
    };
    let date = NaiveDate::parse_from_str(&date, "%Y-%m-%d").map_err(|_| format!("{date:?} is not a date like 2026-11-22"))?;
    blocking(&app, move |app| app.report(&profile_id, report_type, date, Utc::now()).map_err(recite_error)).await
}

