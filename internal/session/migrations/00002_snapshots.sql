-- Workspace snapshots (checkpoints of everything): one row per snapshot a
-- session took in the workspace's shadow git repository. Times are Unix
-- nanoseconds.

-- +goose Up
CREATE TABLE snapshots (
    id         TEXT    PRIMARY KEY,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    workspace  TEXT    NOT NULL,
    turn       INTEGER NOT NULL,
    kind       TEXT    NOT NULL,
    prompt     TEXT    NOT NULL,
    messages   INTEGER NOT NULL,
    commit_id  TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX snapshots_session ON snapshots (session_id, created_at);
CREATE INDEX snapshots_workspace ON snapshots (workspace, created_at);

-- +goose Down
DROP TABLE snapshots;
