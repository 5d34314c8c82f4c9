//! The core's one event stream over HTTP: `GET /events` sends every
//! `AppEvent` the core publishes (`Deskmate::events()`: practice task
//! progress, the microphone's level and partial transcript, lamp and voice
//! notices, due reviews and reminders) as server-sent events, the event's
//! name its channel (`practice://task`, …) and its data the payload — what
//! the shell emits to the window on the same channels.

use std::convert::Infallible;

use axum::extract::State;
use axum::response::sse::{Event, KeepAlive, Sse};
use futures_util::{Stream, StreamExt};

use crate::Api;

/// `GET /events`: from now on, until the client leaves.
pub(crate) async fn follow(
    State(api): State<Api>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let events = api.app.events().into_stream().map(|ev| {
        let channel = ev.channel();
        let payload = serde_json::to_value(&ev)
            .ok()
            .and_then(|v| v.get("payload").cloned())
            .unwrap_or(serde_json::Value::Null);
        Ok(Event::default()
            .event(channel)
            .data(serde_json::to_string(&payload).unwrap_or_else(|_| "null".into())))
    });
    Sse::new(events).keep_alive(KeepAlive::default())
}
