//! Recitation practice commands: due reviews, the practice workflow (start,
//! submit, record, retry, leave, resume), and the parent's reports with
//! their attempts. A submission returns a task id at once (a recording's
//! when the microphone opens); its progress arrives as `practice://task`
//! events, so long checks never freeze the window. While the child recites,
//! `practice://level` carries the meter and `practice://partial` the text
//! heard so far. All of them come from the core's event stream, which
//! `events.rs` forwards to the window. The child's talk button (`talk`)
//! reports its own progress on a channel of its own.

use chrono::{NaiveDate, Utc};
use deskmate_app::orchestrator::entry::Talking;
use deskmate_app::practice::PracticeView;
use deskmate_app::report_attempts::ListedAttempt;
use deskmate_app::{AppError, Deskmate};
use deskmate_protocol::family::{KeepsakeFormat, KeepsakeWritten};
use deskmate_protocol::TaskId;
use deskmate_recite::report::{Report, ReportType};
use deskmate_recite::schedule::DueReview;
use deskmate_recite::Mode;
use tauri::ipc::Channel;
use tauri::State;

use super::{blocking, wire, CmdResult};

#[tauri::command]
pub async fn reviews_due(
    app: State<'_, Deskmate>,
    profile_id: String,
) -> CmdResult<Vec<DueReview>> {
    blocking(&app, move |app| {
        Ok(app.reviews_due(&profile_id, Utc::now())?)
    })
    .await
}

/// What a child said, through the one entry: routed, decided, acted on
/// (a recitation opens on the poem named; the plan lists today's reviews).
#[tauri::command]
pub async fn say(
    app: State<'_, Deskmate>,
    profile_id: String,
    text: String,
) -> CmdResult<deskmate_app::orchestrator::entry::Response> {
    blocking(&app, move |app| app.process(&profile_id, &text)).await
}

/// A button pressed on the screen (`screen:yes`, `screen:next`, …) through
/// the one entry: the scene-local reply it stands for where the child is.
#[tauri::command]
pub async fn say_button(
    app: State<'_, Deskmate>,
    profile_id: String,
    button: String,
) -> CmdResult<deskmate_app::orchestrator::entry::Response> {
    blocking(&app, move |app| {
        let pressed = button.parse().map_err(deskmate_app::AppError::Invalid)?;
        app.process_button(&profile_id, pressed)
    })
    .await
}

/// The talk button: listens to the child until they fall silent (or
/// `talk_stop`), then answers what was said through the one entry; the
/// level, the text heard so far and `thinking` arrive on `on_event`.
#[tauri::command]
pub async fn talk(
    app: State<'_, Deskmate>,
    profile_id: String,
    on_event: Channel<Talking>,
) -> CmdResult<deskmate_app::orchestrator::entry::Response> {
    blocking(&app, move |app| {
        app.talk(&profile_id, move |t| {
            let _ = on_event.send(t);
        })
    })
    .await
}

/// The talk button's stop: what was said so far is answered; false when
/// nothing was listening.
#[tauri::command]
pub async fn talk_stop(app: State<'_, Deskmate>, profile_id: String) -> CmdResult<bool> {
    Ok(app.talk_stop(&profile_id))
}

#[tauri::command]
pub async fn practice_start(
    app: State<'_, Deskmate>,
    profile_id: String,
    material_id: String,
    mode: Mode,
) -> CmdResult<PracticeView> {
    blocking(&app, move |app| {
        Ok(app.practice().start(&profile_id, &material_id, mode)?)
    })
    .await
}

#[tauri::command]
pub async fn practice_current(
    app: State<'_, Deskmate>,
    profile_id: String,
) -> CmdResult<Option<PracticeView>> {
    blocking(&app, move |app| Ok(app.practice().current(&profile_id)?)).await
}

#[tauri::command]
pub async fn practice_submit_text(
    app: State<'_, Deskmate>,
    practice_id: String,
    text: String,
) -> CmdResult<TaskId> {
    blocking(&app, move |app| {
        Ok(app.practice().submit_text(&practice_id, text)?)
    })
    .await
    .map(|task_id| TaskId { task_id })
}

/// Opens the microphone and returns the attempt's task id at once; the end
/// of speech (or `practice_record_stop`) queues the check under that id,
/// whose progress arrives as `practice://task` events.
#[tauri::command]
pub async fn practice_record_start(
    app: State<'_, Deskmate>,
    practice_id: String,
) -> CmdResult<TaskId> {
    blocking(&app, move |app| {
        Ok(app.practice().record_start(&practice_id)?)
    })
    .await
    .map(|task_id| TaskId { task_id })
}

/// Ends the recording; answers with the task id the attempt is checked under.
#[tauri::command]
pub async fn practice_record_stop(
    app: State<'_, Deskmate>,
    practice_id: String,
) -> CmdResult<TaskId> {
    blocking(&app, move |app| {
        Ok(app.practice().record_stop(&practice_id)?)
    })
    .await
    .map(|task_id| TaskId { task_id })
}

/// Opens the microphone for the child to say one unclear line of the verdict
/// again; answers with the task id at once. The take is merged into the same
/// attempt; the updated verdict arrives as a `practice://task` event.
#[tauri::command]
pub async fn practice_retake_start(
    app: State<'_, Deskmate>,
    practice_id: String,
    line: usize,
) -> CmdResult<TaskId> {
    blocking(&app, move |app| {
        Ok(app.practice().retake_start(&practice_id, line)?)
    })
    .await
    .map(|task_id| TaskId { task_id })
}

#[tauri::command]
pub async fn practice_retry(
    app: State<'_, Deskmate>,
    practice_id: String,
) -> CmdResult<PracticeView> {
    blocking(&app, move |app| Ok(app.practice().retry(&practice_id)?)).await
}

#[tauri::command]
pub async fn practice_leave(app: State<'_, Deskmate>, practice_id: String) -> CmdResult<()> {
    blocking(&app, move |app| Ok(app.practice().leave(&practice_id)?)).await
}

#[tauri::command]
pub async fn report(
    app: State<'_, Deskmate>,
    profile_id: String,
    kind: String,
    date: String,
) -> CmdResult<Report> {
    let report_type = match kind.as_str() {
        "daily" => ReportType::Daily,
        "weekly" => ReportType::Weekly,
        other => {
            return Err(wire(AppError::Invalid(format!(
                "a report is daily or weekly, not {other:?}"
            ))))
        }
    };
    let date = NaiveDate::parse_from_str(&date, "%Y-%m-%d").map_err(|_| {
        wire(AppError::Invalid(format!(
            "{date:?} is not a date like 2026-11-22"
        )))
    })?;
    blocking(&app, move |app| {
        Ok(app.report(&profile_id, report_type, date, Utc::now())?)
    })
    .await
}

/// The weekly report of the week holding `date`, saved as a picture or a
/// PDF to keep (a certificate when the week's goals were met) in the
/// user's Downloads folder (else their home), named after the child and
/// the week; an existing file of that name is replaced.
#[tauri::command]
pub async fn report_keepsake_save(
    handle: tauri::AppHandle,
    app: State<'_, Deskmate>,
    profile_id: String,
    date: String,
    format: KeepsakeFormat,
) -> CmdResult<KeepsakeWritten> {
    let date = NaiveDate::parse_from_str(&date, "%Y-%m-%d").map_err(|_| {
        wire(AppError::Invalid(format!(
            "{date:?} is not a date like 2026-11-22"
        )))
    })?;
    let paths = tauri::Manager::path(&handle);
    let folder = paths
        .download_dir()
        .or_else(|_| paths.home_dir())
        .map_err(|e| wire(AppError::Invalid(format!("no folder to save into: {e}"))))?;
    blocking(&app, move |app| {
        let child = app.find_profile(&profile_id)?;
        let ext = match format {
            KeepsakeFormat::Png => "png",
            KeepsakeFormat::Pdf => "pdf",
        };
        let name = child.name.replace(['/', '\\'], "_");
        let out = folder.join(format!("{name}-{date}.{ext}"));
        app.save_report_keepsake(&child.id, date, &out, Some(format), Utc::now())
    })
    .await
}

/// A report's attempts, one by one: `from`..`to` is the report's period (RFC 3339).
#[tauri::command]
pub async fn report_attempts(
    app: State<'_, Deskmate>,
    profile_id: String,
    from: String,
    to: String,
) -> CmdResult<Vec<ListedAttempt>> {
    blocking(&app, move |app| {
        app.attempts_between(&profile_id, &from, &to)
    })
    .await
}
