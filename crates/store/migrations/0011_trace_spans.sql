-- The spans of each request through the orchestrator's entry (issue 16,
-- point 8): one tree per trace id (the `scene_decisions` row of the same
-- id), a root `request` and its stages — speech, route, decide, the scene
-- step, model calls — each with its start, how long it took and its
-- outcome. Written in the decision's transaction; shown as the parents'
-- timeline (`deskmate trace show ID`) and exported over OTLP when an
-- endpoint is configured.
CREATE TABLE trace_spans (
    trace_id       TEXT NOT NULL,                        -- the request's trace id (scene_decisions.id)
    span_id        TEXT NOT NULL,                        -- 16 hex digits
    parent_span_id TEXT,                                 -- NULL for the root span
    name           TEXT NOT NULL,                        -- request, speech, route, decide, scene.*, model.call
    started_at     INTEGER NOT NULL,                     -- unix microseconds
    duration_us    INTEGER NOT NULL CHECK (duration_us >= 0),
    outcome        TEXT NOT NULL CHECK (outcome IN ('ok', 'error')),
    error_code     TEXT,                                 -- the coded error of a failed span
    attributes     TEXT NOT NULL DEFAULT '{}',           -- JSON object of strings and integers
    PRIMARY KEY (trace_id, span_id)
);
