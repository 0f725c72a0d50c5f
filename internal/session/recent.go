package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// LatestID returns the id of the most recently updated session of
// workspace (an absolute path) that has a message, as [Store.Latest]
// chooses it, without loading it. The error wraps [ErrNotFound] when the
// workspace has no such session.
func (s *Store) LatestID(ctx context.Context, workspace string) (string, error) {
	ws, key, err := s.cleanWorkspace(workspace)
	if err != nil {
		return "", err
	}
	var id string
	err = s.read(ctx, func(tx *sql.Tx) error {
		id, err = latestID(ctx, tx, ws, key)
		return err
	})
	return id, err
}

// latestID is LatestID within a transaction; ws is clean (for the
// message), key its workspace key.
func latestID(ctx context.Context, q querier, ws, key string) (string, error) {
	var id string
	err := q.QueryRowContext(ctx, `SELECT id FROM sessions WHERE workspace_key = ? AND parent_session_id IS NULL
		AND message_count > 0 ORDER BY updated_at DESC, rowid DESC LIMIT 1`, key).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return "", &lookupError{msg: fmt.Sprintf("no session to continue in %s: start one without --continue", ws), kind: ErrNotFound}
	}
	if err != nil {
		return "", fmt.Errorf("find latest session: %w", err)
	}
	return id, nil
}

// LoadRecent loads session id (a full id or a unique prefix, as for
// [Store.Load]) with only its last n messages (n ≥ 1), for showing a
// long conversation before the whole of it is needed, and returns how
// many messages the session holds in all. Everything else (usage, cost,
// todos, StoredAt) is as Load returns it. Errors: as Load's; n < 1.
func (s *Store) LoadRecent(ctx context.Context, id string, n int) (*agent.Conversation, int, error) {
	if n < 1 {
		return nil, 0, fmt.Errorf("load the recent messages of %s: n %d is below 1", id, n)
	}
	var sess *agent.Conversation
	var total int
	err := s.revived(ctx, id, func() (err error) {
		sess, total, err = s.loadRecent(ctx, id, n)
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	return sess, total, nil
}

func (s *Store) loadRecent(ctx context.Context, id string, n int) (*agent.Conversation, int, error) {
	var sess *agent.Conversation
	var total int
	err := s.read(ctx, func(tx *sql.Tx) error {
		full, err := resolveID(ctx, tx, id)
		if err != nil {
			return err
		}
		if sess, err = loadSessionWith(ctx, tx, full, func() ([]storedMessage, error) {
			return queryMessages(ctx, tx, full, `SELECT seq, role, parts, usage, created_at, model, cost_usd FROM
				(SELECT * FROM messages WHERE session_id = ? ORDER BY seq DESC LIMIT ?) ORDER BY seq`, full, n)
		}); err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE session_id = ?`, full).Scan(&total); err != nil {
			return fmt.Errorf("count the messages of %s: %w", full, err)
		}
		return nil
	})
	return sess, total, err
}

// messagesOf returns the messages of stored rows.
func messagesOf(msgs []storedMessage) []llm.Message {
	if len(msgs) == 0 {
		return nil
	}
	out := make([]llm.Message, 0, len(msgs))
	for _, m := range msgs {
		out = append(out, m.Message)
	}
	return out
}
