//! Parents' routines over HTTP (issue 21), the same service `deskmate
//! workflows` uses: `GET /workflows`, `POST /workflows` (a routine, checked
//! first: 422 `invalid` with every problem), `GET|PUT|DELETE
//! /workflows/{name}`, `POST /workflows/{name}/runs` (`{profile, input}`:
//! runs it until it finishes, fails or waits; the run and its node events)
//! and `POST /workflow-runs/{run_id}/resume`.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;
use deskmate_protocol::routine::{Routine, RoutineEvent, RoutineRunView};
use serde::Deserialize;

use crate::error::{ApiError, ApiJson, ApiResult};
use crate::{blocking, Api};

/// `GET /workflows`.
pub(crate) async fn list(State(api): State<Api>) -> ApiResult<Json<Vec<Routine>>> {
    let all = blocking(&api.app, |app| Ok(app.routines()?)).await?;
    Ok(Json(all))
}

/// `POST /workflows`.
pub(crate) async fn create(
    State(api): State<Api>,
    ApiJson(routine): ApiJson<Routine>,
) -> ApiResult<(StatusCode, Json<Routine>)> {
    let saved = blocking(&api.app, move |app| Ok(app.save_routine(&routine, false)?)).await?;
    Ok((StatusCode::CREATED, Json(saved)))
}

/// `GET /workflows/{name}`: the routine and its runs.
pub(crate) async fn get(
    State(api): State<Api>,
    Path(name): Path<String>,
) -> ApiResult<Json<crate::wire::RoutineWithRuns>> {
    let (routine, runs) = blocking(&api.app, move |app| {
        Ok((app.routine(&name)?, app.routine_runs(Some(&name))?))
    })
    .await?;
    Ok(Json(crate::wire::RoutineWithRuns { routine, runs }))
}

/// `PUT /workflows/{name}`.
pub(crate) async fn update(
    State(api): State<Api>,
    Path(name): Path<String>,
    ApiJson(routine): ApiJson<Routine>,
) -> ApiResult<Json<Routine>> {
    if routine.name != name {
        return Err(ApiError::invalid(format!(
            "the routine in the body is called {:?}, not {name:?}",
            routine.name
        )));
    }
    let saved = blocking(&api.app, move |app| Ok(app.save_routine(&routine, true)?)).await?;
    Ok(Json(saved))
}

/// `DELETE /workflows/{name}`.
pub(crate) async fn delete(
    State(api): State<Api>,
    Path(name): Path<String>,
) -> ApiResult<StatusCode> {
    blocking(&api.app, move |app| Ok(app.delete_routine(&name)?)).await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub(crate) struct Start {
    /// The child (profile id or name).
    profile: String,
    #[serde(default)]
    input: String,
}

/// What a run answers: the run as saved and what its nodes reported.
fn ran(run: RoutineRunView, events: Vec<RoutineEvent>) -> Json<crate::wire::RoutineRan> {
    Json(crate::wire::RoutineRan { run, events })
}

/// `POST /workflows/{name}/runs`.
pub(crate) async fn run(
    State(api): State<Api>,
    Path(name): Path<String>,
    ApiJson(body): ApiJson<Start>,
) -> ApiResult<Json<crate::wire::RoutineRan>> {
    let profile = {
        let key = body.profile.clone();
        blocking(&api.app, move |app| {
            Ok(app
                .find_profile(&key)
                .map_err(deskmate_app::AppError::from)?)
        })
        .await?
    };
    let mut events = Vec::new();
    let run = api
        .app
        .run_routine(&name, &profile.id, &body.input, &mut |e| events.push(e))
        .await?;
    Ok(ran(run, events))
}

/// `POST /workflow-runs/{run_id}/resume`.
pub(crate) async fn resume(
    State(api): State<Api>,
    Path(run_id): Path<String>,
) -> ApiResult<Json<crate::wire::RoutineRan>> {
    let mut events = Vec::new();
    let run = api
        .app
        .resume_routine_run(&run_id, &mut |e| events.push(e))
        .await?;
    Ok(ran(run, events))
}
