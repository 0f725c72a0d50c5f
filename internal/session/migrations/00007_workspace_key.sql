-- Workspaces compared the way the OS compares paths: each session keeps
-- its workspace as given (for display and for opening it) and the key
-- under which every spelling of that folder is equal (ospath.Style.Key:
-- on Windows and macOS c:\code\proj and C:\Code\Proj are one key). Rows
-- from before get their key when Open next runs (fillWorkspaceKeys), found
-- through the NULLs at the head of the index.

-- +goose Up
ALTER TABLE sessions ADD COLUMN workspace_key TEXT;
CREATE INDEX sessions_workspace_key ON sessions (workspace_key, updated_at);

-- +goose Down
DROP INDEX sessions_workspace_key;
ALTER TABLE sessions DROP COLUMN workspace_key;
