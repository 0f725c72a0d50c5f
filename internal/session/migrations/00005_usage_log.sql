-- The cost governor's ledger: one row per model response that used tokens
-- (kept as a message or not: a compaction's summary), with the model that
-- answered ("PROVIDER/MODEL", '' when unknown), the session's turn (its
-- user prompts so far), tokens, and the cost in US dollars. Unlike
-- messages, rows are never replaced by a compaction nor removed with
-- their session (no foreign key): the daily budget sums what was spent
-- today, and money spent stays spent. Times are Unix nanoseconds.

-- +goose Up
CREATE TABLE usage_log (
    id                 INTEGER PRIMARY KEY,
    session_id         TEXT    NOT NULL,
    model              TEXT    NOT NULL DEFAULT '',
    turn               INTEGER NOT NULL DEFAULT 0,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens   INTEGER NOT NULL DEFAULT 0,
    cost_usd           REAL    NOT NULL DEFAULT 0,
    created_at         INTEGER NOT NULL
);
CREATE INDEX usage_log_created ON usage_log (created_at);
CREATE INDEX usage_log_session ON usage_log (session_id, id);
INSERT INTO usage_log (session_id, model, input_tokens, output_tokens, cache_read_tokens,
    cache_write_tokens, reasoning_tokens, cost_usd, created_at)
SELECT session_id, model,
    COALESCE(json_extract(usage, '$.input_tokens'), 0), COALESCE(json_extract(usage, '$.output_tokens'), 0),
    COALESCE(json_extract(usage, '$.cache_read_tokens'), 0), COALESCE(json_extract(usage, '$.cache_write_tokens'), 0),
    COALESCE(json_extract(usage, '$.reasoning_tokens'), 0), cost_usd, created_at
FROM messages WHERE usage IS NOT NULL ORDER BY session_id, seq;

-- +goose Down
DROP TABLE usage_log;
