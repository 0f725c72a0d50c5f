package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// Summary describes a session without its messages, for listings.
// Messages is the number of stored messages, Usage the tokens spent over the
// whole session (compaction does not reduce it), CostUSD its cost in US
// dollars as recorded (see [Store.Priced]).
type Summary struct {
	ID        string    `json:"id"`
	Workspace string    `json:"workspace"`
	Title     string    `json:"title"`
	Provider  string    `json:"provider"`
	Model     string    `json:"model"`
	Messages  int       `json:"messages"`
	Usage     llm.Usage `json:"usage"`
	CostUSD   float64   `json:"cost_usd"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
	// ParentID is the session whose task call started this one (a
	// subagent's session; "" for a top-level session), ParentToolCallID
	// that call, Subagent the subagent's label, ToolCalls the number of
	// tool calls the session's model made (counted for subagent sessions
	// only: [Store.Children], [Store.Descendants], an export's Subagents).
	ParentID         string `json:"parent_session_id,omitempty"`
	ParentToolCallID string `json:"parent_tool_call_id,omitempty"`
	Subagent         string `json:"subagent,omitempty"`
	ToolCalls        int    `json:"tool_calls,omitempty"`
	// Conversation is the conversation mode and active models the
	// session last used, as the front end's layer wrote them
	// ([Store.SetConversation]; JSON, opaque to the store); "" when none
	// was recorded.
	Conversation string `json:"conversation,omitempty"`
}

// ListOptions selects the sessions [Store.List] returns: those of
// Workspace (an absolute path), or of every workspace when All is set;
// at most Limit of them (0: no limit), most recently updated first.
type ListOptions struct {
	Workspace string
	All       bool
	Limit     int
}

// querier is what *sql.DB and *sql.Tx have in common.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// Create starts a session in workspace (an absolute directory) with the
// given provider and model names and returns it, empty. Until its first
// message the session is neither [Store.Latest] nor listed, and after a
// day without one another aidex's [Open] removes it; its id stays valid
// in this Store all the same (the session is written again when needed).
// Errors: a relative or empty workspace, or a failed write.
func (s *Store) Create(ctx context.Context, workspace, provider, model string) (*agent.Conversation, error) {
	ws, key, err := s.cleanWorkspace(workspace)
	if err != nil {
		return nil, err
	}
	now := s.now()
	id := newID(now)
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO sessions (id, workspace, workspace_key, provider, model, created_at, updated_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, id, ws, key, provider, model, now.UnixNano(), now.UnixNano())
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	s.made.Store(id, madeRow{workspace: ws, key: key, provider: provider, model: model, created: now.UnixNano()})
	return &agent.Conversation{ID: id, Workspace: ws, StoredAt: time.Unix(0, now.UnixNano())}, nil
}

// cleanWorkspace returns workspace cleaned (as stored and shown) and its
// key in the store's path style (as compared: one key for every spelling
// of the folder). Errors: an empty or relative workspace.
func (s *Store) cleanWorkspace(workspace string) (ws, key string, err error) {
	if workspace == "" || !s.style.IsAbs(workspace) {
		return "", "", fmt.Errorf("session workspace %q is not an absolute path: pass the resolved workspace root", workspace)
	}
	return s.style.Clean(workspace), s.style.Key(workspace), nil
}

// fillWorkspaceKeys gives the sessions written before workspace keys (or
// by a store of another path style) their key; when there are none it
// costs one query on the index of keys.
func (s *Store) fillWorkspaceKeys(ctx context.Context) error {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM sessions WHERE workspace_key IS NULL`).Scan(&n); err != nil || n == 0 {
		if err != nil {
			return fmt.Errorf("find sessions without a workspace key: %w", err)
		}
		return nil
	}
	return s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT DISTINCT workspace FROM sessions WHERE workspace_key IS NULL`)
		if err != nil {
			return fmt.Errorf("find sessions without a workspace key: %w", err)
		}
		var spaces []string
		for rows.Next() {
			var w string
			if err := rows.Scan(&w); err != nil {
				_ = rows.Close()
				return fmt.Errorf("find sessions without a workspace key: %w", err)
			}
			spaces = append(spaces, w)
		}
		if err := rows.Close(); err != nil {
			return fmt.Errorf("find sessions without a workspace key: %w", err)
		}
		for _, w := range spaces {
			if _, err := tx.ExecContext(ctx, `UPDATE sessions SET workspace_key = ? WHERE workspace = ? AND workspace_key IS NULL`,
				s.style.Key(w), w); err != nil {
				return fmt.Errorf("set workspace key of %s: %w", w, err)
			}
		}
		return nil
	})
}

// Load returns the session id (or the only session whose id starts with
// id, with or without the "s_" prefix) with its messages in order, token
// usage, cost and plan. Errors wrap [ErrNotFound] ("session "x" not found:
// run aidex sessions list") or [ErrAmbiguous].
func (s *Store) Load(ctx context.Context, id string) (*agent.Conversation, error) {
	var sess *agent.Conversation
	err := s.revived(ctx, id, func() error {
		return s.read(ctx, func(tx *sql.Tx) error {
			full, err := resolveID(ctx, tx, id)
			if err != nil {
				return err
			}
			sess, err = loadSession(ctx, tx, full)
			return err
		})
	})
	if err != nil {
		return nil, err
	}
	return sess, nil
}

func loadSession(ctx context.Context, q querier, id string) (*agent.Conversation, error) {
	return loadSessionWith(ctx, q, id, func() ([]storedMessage, error) { return loadMessages(ctx, q, id) })
}

// loadSessionWith loads session id's row and the messages load returns.
func loadSessionWith(ctx context.Context, q querier, id string, load func() ([]storedMessage, error)) (*agent.Conversation, error) {
	sess := &agent.Conversation{ID: id}
	var todos string
	var updated int64
	u := &sess.Usage
	err := q.QueryRowContext(ctx, `SELECT workspace, input_tokens, output_tokens, cache_read_tokens,
		cache_write_tokens, reasoning_tokens, cost_usd, todos, updated_at FROM sessions WHERE id = ?`, id).
		Scan(&sess.Workspace, &u.InputTokens, &u.OutputTokens, &u.CacheReadTokens,
			&u.CacheWriteTokens, &u.ReasoningTokens, &sess.CostUSD, &todos, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound(id)
	}
	if err != nil {
		return nil, fmt.Errorf("load session %s: %w", id, err)
	}
	if err := json.Unmarshal([]byte(todos), &sess.Todos); err != nil {
		return nil, fmt.Errorf("load session %s: stored plan is corrupt: %w", id, err)
	}
	msgs, err := load()
	if err != nil {
		return nil, err
	}
	sess.Messages = messagesOf(msgs)
	sess.StoredAt = time.Unix(0, updated)
	return sess, nil
}

// storedMessage is a message row: CostUSD is the price of its Usage.
type storedMessage struct {
	Seq int
	llm.Message
	Usage     *llm.Usage
	CostUSD   float64
	CreatedAt time.Time
}

// Info returns the summary of session id (a full id or a unique prefix, as
// for [Store.Load]). Errors wrap [ErrNotFound] or [ErrAmbiguous].
func (s *Store) Info(ctx context.Context, id string) (Summary, error) {
	var sum Summary
	err := s.revived(ctx, id, func() error {
		return s.read(ctx, func(tx *sql.Tx) error {
			full, err := resolveID(ctx, tx, id)
			if err != nil {
				return err
			}
			sums, err := querySummaries(ctx, tx, "WHERE s.id = ?", full)
			if err != nil {
				return err
			}
			if len(sums) == 0 {
				return notFound(full)
			}
			sum = sums[0]
			return nil
		})
	})
	return sum, err
}

// UpdatedAt returns when session id (a full id, as [Store.Create] and
// [Store.Load] give it) last changed: [Summary.UpdatedAt] of [Store.Info],
// read with one indexed query instead of the summary's (a live session
// checks it before and after each run). Errors wrap [ErrNotFound] for an
// unknown id.
func (s *Store) UpdatedAt(ctx context.Context, id string) (time.Time, error) {
	var at time.Time
	err := s.revived(ctx, id, func() error {
		var ns int64
		err := s.db.QueryRowContext(ctx, `SELECT updated_at FROM sessions WHERE id = ?`, id).Scan(&ns)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(id)
		}
		if err != nil {
			return fmt.Errorf("look up session %q: %w", id, err)
		}
		at = time.Unix(0, ns)
		return nil
	})
	return at, err
}

// Latest returns the most recently updated session of workspace (an
// absolute path) that has a message, for --continue. The error wraps
// [ErrNotFound] when the workspace has no such session.
func (s *Store) Latest(ctx context.Context, workspace string) (*agent.Conversation, error) {
	ws, key, err := s.cleanWorkspace(workspace)
	if err != nil {
		return nil, err
	}
	var sess *agent.Conversation
	err = s.read(ctx, func(tx *sql.Tx) error {
		id, err := latestID(ctx, tx, ws, key)
		if err != nil {
			return err
		}
		sess, err = loadSession(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	return sess, nil
}

// List returns the summaries of the sessions opt selects, most recently
// updated first; sessions without a message are left out. Errors: neither Workspace nor All given, a relative
// workspace, a negative Limit, or a failed query.
func (s *Store) List(ctx context.Context, opt ListOptions) ([]Summary, error) {
	if opt.Limit < 0 {
		return nil, fmt.Errorf("list sessions: limit %d is negative", opt.Limit)
	}
	where, args := "WHERE s.parent_session_id IS NULL AND s.message_count > 0", []any{}
	if !opt.All {
		_, key, err := s.cleanWorkspace(opt.Workspace)
		if err != nil {
			return nil, fmt.Errorf("list sessions: %w (or list all workspaces)", err)
		}
		where, args = where+" AND s.workspace_key = ?", append(args, key)
	}
	limit := opt.Limit
	if limit == 0 {
		limit = -1 // SQLite: no limit
	}
	where += " ORDER BY s.updated_at DESC, s.rowid DESC LIMIT ?"
	return querySummaries(ctx, s.db, where, append(args, limit)...)
}

const summarySelect = `SELECT s.id, s.workspace, s.title, s.provider, s.model,
	(SELECT COUNT(*) FROM messages m WHERE m.session_id = s.id),
	s.input_tokens, s.output_tokens, s.cache_read_tokens, s.cache_write_tokens, s.reasoning_tokens,
	s.cost_usd, s.created_at, s.updated_at, COALESCE(s.parent_session_id, ''), s.parent_tool_call_id, s.subagent, s.conversation, `

// summaryFrom ends summarySelect without counting tool calls (listings:
// Summary.ToolCalls is 0), toolCallsFrom with the count (subagents).
const (
	summaryFrom   = `0 FROM sessions s `
	toolCallsFrom = `(SELECT COUNT(*) FROM messages m, json_each(m.parts) p WHERE m.session_id = s.id AND m.role = 'assistant'
		AND json_extract(p.value, '$.type') = 'tool_call') FROM sessions s `
)

func querySummaries(ctx context.Context, q querier, tail string, args ...any) ([]Summary, error) {
	return querySummariesFrom(ctx, q, summaryFrom, tail, args...)
}

// querySummariesFrom is querySummaries with the select's end (summaryFrom
// or toolCallsFrom).
func querySummariesFrom(ctx context.Context, q querier, from, tail string, args ...any) ([]Summary, error) {
	rows, err := q.QueryContext(ctx, summarySelect+from+tail, args...)
	if err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var (
			m              Summary
			u              = &m.Usage
			created, updat int64
		)
		if err := rows.Scan(&m.ID, &m.Workspace, &m.Title, &m.Provider, &m.Model, &m.Messages,
			&u.InputTokens, &u.OutputTokens, &u.CacheReadTokens, &u.CacheWriteTokens, &u.ReasoningTokens,
			&m.CostUSD, &created, &updat, &m.ParentID, &m.ParentToolCallID, &m.Subagent, &m.Conversation, &m.ToolCalls); err != nil {
			return nil, fmt.Errorf("list sessions: %w", err)
		}
		m.CreatedAt, m.UpdatedAt = time.Unix(0, created), time.Unix(0, updat)
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list sessions: %w", err)
	}
	return out, nil
}

// Delete removes session id (a full id or a unique prefix) with its
// messages, checkpoints and read records, and gives their space back to
// the file system (the file shrinks at the next WAL checkpoint, at the
// latest when the last connection closes; a database from before
// auto-vacuum is switched to it with a VACUUM, once). Errors wrap [ErrNotFound] or
// [ErrAmbiguous].
func (s *Store) Delete(ctx context.Context, id string) error {
	var full string
	err := s.write(ctx, func(tx *sql.Tx) error {
		var err error
		if full, err = resolveID(ctx, tx, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM sessions WHERE id = ?`, full); err != nil {
			return fmt.Errorf("delete session %s: %w", full, err)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.made.Delete(full) // deleted on purpose: not to be written again
	return s.reclaim(ctx, true)
}

// SetModel records that session id (a full id) now talks to model of
// provider. The error wraps [ErrNotFound] for an unknown id.
func (s *Store) SetModel(ctx context.Context, id, provider, model string) error {
	_, err := s.SetModelSince(ctx, id, provider, model, time.Time{})
	return err
}

// SetConversation records conv, the conversation mode and active models
// session id uses (JSON the caller defines; "" for the model alone), for
// a later resume. It does not change the session's update time. Errors
// wrap [ErrNotFound] for an unknown session id.
func (s *Store) SetConversation(ctx context.Context, id, conv string) error {
	return s.revived(ctx, id, func() error {
		return s.write(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `UPDATE sessions SET conversation = ? WHERE id = ?`, conv, id)
			if err != nil {
				return fmt.Errorf("set the conversation of session %s: %w", id, err)
			}
			if n, _ := res.RowsAffected(); n == 0 {
				return notFound(id)
			}
			return nil
		})
	})
}

// SetModelSince is [Store.SetModel] for a front end that holds the
// session as the store had it at since (its update time, see
// agent.Conversation.StoredAt): in the same transaction it reports the
// session's new update time when the session was still at since, so the
// holder's copy stays current without a reload; the zero time when
// another process changed the session since (or since is zero). When the
// session already has this provider and model nothing is written. Errors
// wrap [ErrNotFound] for an unknown session id.
func (s *Store) SetModelSince(ctx context.Context, id, provider, model string, since time.Time) (time.Time, error) {
	var current time.Time
	err := s.revived(ctx, id, func() error { return s.setModelSince(ctx, id, provider, model, since, &current) })
	return current, err
}

func (s *Store) setModelSince(ctx context.Context, id, provider, model string, since time.Time, current *time.Time) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var was int64
		var oldProvider, oldModel string
		err := tx.QueryRowContext(ctx, `SELECT updated_at, provider, model FROM sessions WHERE id = ?`, id).Scan(&was, &oldProvider, &oldModel)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(id)
		}
		if err != nil {
			return fmt.Errorf("set model of session %s: %w", id, err)
		}
		if oldProvider == provider && oldModel == model {
			// Nothing to record: no write, and the session keeps its place
			// in the recent list (merely resuming it does not move it).
			if !since.IsZero() && was == since.UnixNano() {
				*current = since
			}
			return nil
		}
		now := s.now().UnixNano()
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET provider = ?, model = ?, updated_at = ? WHERE id = ?`,
			provider, model, now, id)
		if err := checkUpdated(res, err, id, "set model"); err != nil {
			return err
		}
		if !since.IsZero() && was == since.UnixNano() {
			*current = time.Unix(0, now)
		}
		return nil
	})
}

// checkUpdated turns the result of an UPDATE of one session into an error:
// the statement's own, or not-found when no row changed.
func checkUpdated(res sql.Result, err error, id, what string) error {
	if err != nil {
		return fmt.Errorf("%s of session %s: %w", what, id, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return fmt.Errorf("%s of session %s: %w", what, id, err)
	}
	if n == 0 {
		return notFound(id)
	}
	return nil
}

// lookupError is a missing or ambiguous session; it matches ErrNotFound
// or ErrAmbiguous with errors.Is and reads as a sentence with its fix.
type lookupError struct {
	msg  string
	kind error
}

func (e *lookupError) Error() string        { return e.msg }
func (e *lookupError) Is(target error) bool { return target == e.kind }

// notFound is the error for a missing session id.
func notFound(id string) error {
	return &lookupError{msg: fmt.Sprintf("session %q not found: run aidex sessions list", id), kind: ErrNotFound}
}

// resolveID returns the session id that id names: itself when it exists,
// else the only id that starts with id or with "s_"+id.
func resolveID(ctx context.Context, q querier, id string) (string, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return "", &lookupError{msg: "no session id given: run aidex sessions list", kind: ErrNotFound}
	}
	var full string
	err := q.QueryRowContext(ctx, `SELECT id FROM sessions WHERE id = ?`, id).Scan(&full)
	if err == nil {
		return full, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return "", fmt.Errorf("look up session %q: %w", id, err)
	}
	prefixes := []string{id}
	if !strings.HasPrefix(id, IDPrefix) {
		prefixes = append(prefixes, IDPrefix+id)
	}
	var matches []string
	for _, p := range prefixes {
		m, err := idsWithPrefix(ctx, q, p)
		if err != nil {
			return "", err
		}
		matches = append(matches, m...)
	}
	switch len(matches) {
	case 0:
		return "", notFound(id)
	case 1:
		return matches[0], nil
	}
	return "", &lookupError{
		msg:  fmt.Sprintf("session id %q is ambiguous (%s, ...): give more characters", id, strings.Join(matches, ", ")),
		kind: ErrAmbiguous,
	}
}

// idsWithPrefix returns up to two ids starting with p. Ids are ASCII, so
// every id with prefix p sorts in [p, p+"\x7f").
func idsWithPrefix(ctx context.Context, q querier, p string) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT 2`, p, p+"\x7f")
	if err != nil {
		return nil, fmt.Errorf("look up session %q: %w", p, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("look up session %q: %w", p, err)
		}
		if strings.HasPrefix(id, p) {
			out = append(out, id)
		}
	}
	return out, rows.Err()
}
