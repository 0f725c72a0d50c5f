package session

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/zelvior/aidex/internal/agent"
)

// Child says which parent a subagent's session belongs to: the parent
// session's id, the id of the parent's task call that started it, and the
// subagent's label (its type and the task's description).
type Child struct {
	ParentID   string
	ToolCallID string
	Label      string
}

// CreateChild starts a subagent's session, linked to its parent, in
// workspace with the given provider and model. Child sessions are not
// listed by [Store.List] nor picked by [Store.Latest]; [Store.Children]
// returns them. Errors: an unknown parent id, a relative workspace, a
// failed write.
func (s *Store) CreateChild(ctx context.Context, c Child, workspace, provider, model string) (*agent.Conversation, error) {
	ws, key, err := s.cleanWorkspace(workspace)
	if err != nil {
		return nil, err
	}
	now := s.now()
	id := newID(now)
	err = s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE id = ?`, c.ParentID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return notFound(c.ParentID)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, workspace, workspace_key, provider, model, created_at, updated_at,
			parent_session_id, parent_tool_call_id, subagent, title) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, ws, key, provider, model, now.UnixNano(), now.UnixNano(), c.ParentID, c.ToolCallID, c.Label, makeTitle(c.Label))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create subagent session: %w", err)
	}
	return &agent.Conversation{ID: id, Workspace: ws, StoredAt: time.Unix(0, now.UnixNano())}, nil
}

// Children returns the summaries of the sessions parentID's task calls
// started (direct children only), oldest first. Errors: a failed query.
func (s *Store) Children(ctx context.Context, parentID string) ([]Summary, error) {
	return querySummariesFrom(ctx, s.db, toolCallsFrom, "WHERE s.parent_session_id = ? ORDER BY s.created_at, s.rowid", parentID)
}

// descendantsWhere selects the sessions under a parent (children,
// grandchildren, ...), oldest first.
const descendantsWhere = `WHERE s.id IN (WITH RECURSIVE d(id) AS (
	SELECT id FROM sessions WHERE parent_session_id = ?
	UNION ALL SELECT c.id FROM sessions c JOIN d ON c.parent_session_id = d.id) SELECT id FROM d)
	ORDER BY s.created_at, s.rowid`

// Descendants returns the summaries of every subagent session under
// parentID (its children, theirs, ...), oldest first: their usage, cost
// and tool calls are the per-subagent account of /cost and `aidex
// sessions show`. Errors: a failed query.
func (s *Store) Descendants(ctx context.Context, parentID string) ([]Summary, error) {
	return querySummariesFrom(ctx, s.db, toolCallsFrom, descendantsWhere, parentID)
}
