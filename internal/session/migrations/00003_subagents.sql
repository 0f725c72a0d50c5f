-- Subagent sessions: a session started by a parent session's task call
-- records its parent, the parent's tool call and the subagent's label
-- (type and task description). Top-level sessions have a NULL parent.

-- +goose Up
ALTER TABLE sessions ADD COLUMN parent_session_id TEXT REFERENCES sessions (id) ON DELETE CASCADE;
ALTER TABLE sessions ADD COLUMN parent_tool_call_id TEXT NOT NULL DEFAULT '';
ALTER TABLE sessions ADD COLUMN subagent TEXT NOT NULL DEFAULT '';
CREATE INDEX sessions_parent ON sessions (parent_session_id);

-- +goose Down
DROP INDEX sessions_parent;
ALTER TABLE sessions DROP COLUMN subagent;
ALTER TABLE sessions DROP COLUMN parent_tool_call_id;
ALTER TABLE sessions DROP COLUMN parent_session_id;
