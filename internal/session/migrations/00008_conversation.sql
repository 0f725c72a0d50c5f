-- A session's conversation mode and active models, as the session last
-- used them (JSON, opaque to the store: app.Multi), so that -c and -r
-- come back on them. '' means none recorded (the model alone).

-- +goose Up
ALTER TABLE sessions ADD COLUMN conversation TEXT NOT NULL DEFAULT '';

-- +goose Down
ALTER TABLE sessions DROP COLUMN conversation;
