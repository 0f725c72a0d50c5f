-- The first schema of the aidex session store. Times are Unix nanoseconds,
-- token counts are tokens, costs US dollars. JSON columns hold the llm and
-- agent types as encoding/json writes them.

-- +goose Up
CREATE TABLE sessions (
    id                 TEXT PRIMARY KEY,
    workspace          TEXT    NOT NULL,
    title              TEXT    NOT NULL DEFAULT '',
    provider           TEXT    NOT NULL DEFAULT '',
    model              TEXT    NOT NULL DEFAULT '',
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    turn               INTEGER NOT NULL DEFAULT 0,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens   INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL    NOT NULL DEFAULT 0,
    todos              TEXT    NOT NULL DEFAULT '[]'
);
CREATE INDEX sessions_workspace_updated ON sessions (workspace, updated_at);
CREATE INDEX sessions_updated ON sessions (updated_at);

CREATE TABLE messages (
    id         INTEGER PRIMARY KEY,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL,
    role       TEXT    NOT NULL,
    parts      TEXT    NOT NULL,
    usage      TEXT,
    created_at INTEGER NOT NULL,
    UNIQUE (session_id, seq)
);

CREATE TABLE checkpoints (
    id         INTEGER PRIMARY KEY,
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn       INTEGER NOT NULL,
    path       TEXT    NOT NULL,
    existed    INTEGER NOT NULL,
    content    BLOB,
    created_at INTEGER NOT NULL
);
CREATE INDEX checkpoints_session_turn ON checkpoints (session_id, turn, path);

CREATE TABLE reads (
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    path       TEXT    NOT NULL,
    size       INTEGER NOT NULL,
    mtime_ns   INTEGER NOT NULL,
    sha256     BLOB    NOT NULL,
    PRIMARY KEY (session_id, path)
) WITHOUT ROWID;

-- +goose Down
DROP TABLE reads;
DROP TABLE checkpoints;
DROP TABLE messages;
DROP TABLE sessions;
