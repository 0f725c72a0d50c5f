-- Empty sessions: each session counts its messages (message_count, kept
-- by triggers on every insert and delete of a message, whatever the
-- statement), so --continue and the listings skip sessions without a
-- message, and Open finds old empty sessions to remove through a partial
-- index holding only the empty ones.

-- +goose Up
ALTER TABLE sessions ADD COLUMN message_count INTEGER NOT NULL DEFAULT 0;
UPDATE sessions SET message_count = (SELECT COUNT(*) FROM messages m WHERE m.session_id = sessions.id);
-- +goose StatementBegin
CREATE TRIGGER messages_count_insert AFTER INSERT ON messages BEGIN
    UPDATE sessions SET message_count = message_count + 1 WHERE id = NEW.session_id;
END;
-- +goose StatementEnd
-- +goose StatementBegin
CREATE TRIGGER messages_count_delete AFTER DELETE ON messages BEGIN
    UPDATE sessions SET message_count = message_count - 1 WHERE id = OLD.session_id;
END;
-- +goose StatementEnd
CREATE INDEX sessions_empty ON sessions (updated_at) WHERE message_count = 0;

-- +goose Down
DROP INDEX sessions_empty;
DROP TRIGGER messages_count_delete;
DROP TRIGGER messages_count_insert;
ALTER TABLE sessions DROP COLUMN message_count;
