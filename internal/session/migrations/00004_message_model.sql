-- Multi-model conversations and the cost governor: each message records
-- the model that wrote it ("PROVIDER/MODEL", '' for user and tool
-- messages and for rows saved before this migration) and the cost in US
-- dollars of the usage it carries. created_at is indexed for the daily
-- budget (the cost of every session since a time).

-- +goose Up
ALTER TABLE messages ADD COLUMN model TEXT NOT NULL DEFAULT '';
ALTER TABLE messages ADD COLUMN cost_usd REAL NOT NULL DEFAULT 0;
CREATE INDEX messages_created ON messages (created_at);

-- +goose Down
DROP INDEX messages_created;
ALTER TABLE messages DROP COLUMN cost_usd;
ALTER TABLE messages DROP COLUMN model;
