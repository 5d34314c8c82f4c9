-- The parents' activity list reads a child's newest request roots
-- (`recent_traces`: root spans of one profile, refused requests among them)
-- without scanning every span: one index on the root span's profile and
-- start. The expression matches the query's exactly, so SQLite uses it.
CREATE INDEX trace_spans_root_profile
    ON trace_spans (json_extract(attributes, '$.profile'), started_at)
    WHERE parent_span_id IS NULL;
