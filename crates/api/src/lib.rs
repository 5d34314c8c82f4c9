//! The local HTTP API behind `deskmate serve`: a thin layer that moves data
//! between HTTP (JSON and server-sent events) and the core's composition
//! root, [`deskmate_app::Deskmate`]. It runs no agent loop of its own: a run
//! is the chat companion's run (`app.chat()`), its AG-UI events translated
//! into the LangGraph server's stream; a thread is the chat thread stored in
//! SQLite; an interrupt is the approval feature's waiting call.
//!
//! Security (see [`security`]): a token on every route but `GET /ok`, the
//! `Host` header checked, request bodies limited to [`MAX_BODY_BYTES`].

mod agui;
pub mod error;
mod events;
mod langgraph;
pub mod openapi;
mod recitation_tasks;
mod routines;
mod scenes;
pub mod security;
mod upload;
mod wire;

use axum::extract::DefaultBodyLimit;
use axum::routing::get;
use axum::Router;
use deskmate_app::Deskmate;

pub use error::{ApiError, ApiResult};
pub use security::{load_or_create_token, Security, TOKEN_ENV, TOKEN_FILE};
pub use upload::MAX_UPLOAD_BYTES;

/// The largest request body the API reads (1 MiB); a larger one is
/// answered 413 `body.too_large` before anything is stored.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// What every handler reaches: the core, the background runs' streams,
/// the runs waiting their turn and the recitation tasks.
#[derive(Debug, Clone)]
pub(crate) struct Api {
    pub app: Deskmate,
    pub runs: langgraph::RunBook,
    /// The runs waiting their turn on a busy thread (`enqueue`).
    pub turns: langgraph::ThreadTurns,
    pub tasks: recitation_tasks::TaskBook,
}

/// The whole API on one router, guarded by `security`.
pub fn router(app: Deskmate, security: Security) -> Router {
    Router::new()
        .route("/ok", get(ok))
        .route("/info", get(info))
        .route("/events", get(events::follow))
        .route(
            "/openapi.json",
            get(|| async { axum::Json(openapi::document()) }),
        )
        .route("/ag-ui", axum::routing::post(agui::run))
        .route(
            "/orchestrator/process",
            axum::routing::post(scenes::process)
                .layer(DefaultBodyLimit::max(scenes::MAX_PHOTOS_BODY_BYTES)),
        )
        .route(
            "/recitation/check",
            axum::routing::post(scenes::recitation_check)
                .layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)),
        )
        .route(
            "/recitation/tasks",
            axum::routing::post(recitation_tasks::create)
                .layer(DefaultBodyLimit::max(MAX_UPLOAD_BYTES)),
        )
        .route("/recitation/tasks/{id}", get(recitation_tasks::get))
        .route(
            "/recitation/tasks/{id}/stream",
            get(recitation_tasks::stream),
        )
        .route("/workflows", get(routines::list).post(routines::create))
        .route(
            "/workflows/{name}",
            get(routines::get)
                .put(routines::update)
                .delete(routines::delete),
        )
        .route("/workflows/{name}/runs", axum::routing::post(routines::run))
        .route(
            "/workflow-runs/{run_id}/resume",
            axum::routing::post(routines::resume),
        )
        .merge(langgraph::routes())
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .with_state(Api {
            app,
            runs: langgraph::RunBook::default(),
            turns: langgraph::ThreadTurns::default(),
            tasks: recitation_tasks::TaskBook::default(),
        })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn_with_state(
            security,
            security::guard,
        ))
}

/// Serves the API on `listener` until the process ends.
pub async fn serve(
    app: Deskmate,
    listener: tokio::net::TcpListener,
    security: Security,
) -> std::io::Result<()> {
    use axum::serve::ListenerExt;
    // Events are small writes; with Nagle's algorithm on, each one after
    // the first waited for the client's delayed ACK (~40 ms on Linux).
    let listener = listener.tap_io(|tcp| {
        if let Err(e) = tcp.set_nodelay(true) {
            tracing::debug!("cannot turn off Nagle's algorithm on a connection: {e}");
        }
    });
    axum::serve(listener, router(app, security)).await
}

/// LangGraph's health route: answers without a token.
async fn ok() -> axum::Json<wire::Health> {
    axum::Json(wire::Health { ok: true })
}

/// What this server is (LangGraph's `/info`): its version and the
/// features it serves.
async fn info() -> axum::Json<wire::Info> {
    axum::Json(wire::Info {
        version: env!("CARGO_PKG_VERSION").into(),
        server: "deskmate".into(),
        flags: wire::InfoFlags {
            assistants: true,
            crons: false,
            langsmith: false,
        },
        metadata: serde_json::Map::new(),
    })
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no route {}", uri.path()))
}

/// A known path asked with another method: the error shape, not axum's
/// empty 405.
async fn method_not_allowed(method: axum::http::Method, uri: axum::http::Uri) -> ApiError {
    ApiError::new(
        axum::http::StatusCode::METHOD_NOT_ALLOWED,
        "method_not_allowed",
        format!("{} does not answer {method}", uri.path()),
    )
}

/// Runs `f` on the blocking pool: SQLite never blocks the executor.
pub(crate) async fn blocking<T: Send + 'static>(
    app: &Deskmate,
    f: impl FnOnce(Deskmate) -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    let app = app.clone();
    tokio::task::spawn_blocking(move || f(app))
        .await
        .map_err(|e| ApiError::internal(format!("a database task stopped: {e}")))?
}
