package session

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/llm"
)

// Snapshot kinds: taken before a turn that may change files, before a
// rewind (so the rewind can be undone), or before a user command changes
// files (/save-code; undone as a turn is).
const (
	SnapshotTurn    = "turn"
	SnapshotRewind  = "rewind"
	SnapshotCommand = "command"
)

// Snapshot is a checkpoint of the workspace recorded for a session: the
// commit of the workspace's shadow repository (package checkpoint) with
// what it belongs to.
type Snapshot struct {
	// ID is short (8 base32 characters) and unique in the store.
	ID        string
	SessionID string
	Workspace string
	// Turn is the session's turn counter (user prompts so far) when the
	// snapshot was taken.
	Turn int64
	// Kind is SnapshotTurn, SnapshotRewind or SnapshotCommand.
	Kind string
	// Prompt is the user prompt of the exchange (for a rewind's snapshot, a
	// description of the rewind; for a command's, the command).
	Prompt string
	// Messages is the conversation's length (messages) before Prompt.
	Messages int
	// Commit is the shadow repository's commit id.
	Commit string
	Time   time.Time
}

// ErrUnknownSnapshot is wrapped by the error for a snapshot id no
// snapshot has.
var ErrUnknownSnapshot = errors.New("unknown checkpoint")

// snapshotIDLength is the length of a snapshot id in characters.
const snapshotIDLength = 8

// newSnapshotID returns 8 random base32 characters (40 bits).
func newSnapshotID() string {
	var r [snapshotIDLength]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails on supported platforms
	for i := range r {
		r[i] = idAlphabet[r[i]&31]
	}
	return string(r[:])
}

// TurnPoint is where a session stands for a snapshot before a turn: its
// turn counter, the last user prompt and the conversation's length before
// it; Snapshotted says a turn snapshot was already taken in this turn.
type TurnPoint struct {
	Turn        int64
	Prompt      string
	Messages    int
	Snapshotted bool
}

// TurnPoint returns where session id (a full id) stands. Errors wrap
// ErrNotFound.
func (s *Store) TurnPoint(ctx context.Context, id string) (TurnPoint, error) {
	var tp TurnPoint
	err := s.read(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT turn FROM sessions WHERE id = ?`, id).Scan(&tp.Turn)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(id)
		}
		if err != nil {
			return fmt.Errorf("session %s: %w", id, err)
		}
		var seq int
		var parts string
		err = tx.QueryRowContext(ctx, `SELECT seq, parts FROM messages WHERE session_id = ? AND role = ?
			ORDER BY seq DESC LIMIT 1`, id, string(llm.RoleUser)).Scan(&seq, &parts)
		switch {
		case errors.Is(err, sql.ErrNoRows):
		case err != nil:
			return fmt.Errorf("session %s: last prompt: %w", id, err)
		default:
			var m llm.Message
			if err := json.Unmarshal([]byte(parts), &m.Parts); err != nil {
				return fmt.Errorf("session %s: stored prompt is corrupt: %w", id, err)
			}
			tp.Prompt = m.Text()
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE session_id = ? AND seq < ?`,
				id, seq).Scan(&tp.Messages); err != nil {
				return fmt.Errorf("session %s: %w", id, err)
			}
		}
		return tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM snapshots WHERE session_id = ? AND turn = ? AND kind = ?)`,
			id, tp.Turn, SnapshotTurn).Scan(&tp.Snapshotted)
	})
	return tp, err
}

// AddSnapshot records sn (its ID and Time are set here, Workspace from the
// session) and returns it. Errors wrap ErrNotFound for an unknown session.
func (s *Store) AddSnapshot(ctx context.Context, sn Snapshot) (Snapshot, error) {
	sn.Time = s.now()
	err := s.write(ctx, func(tx *sql.Tx) error {
		if err := tx.QueryRowContext(ctx, `SELECT workspace FROM sessions WHERE id = ?`, sn.SessionID).
			Scan(&sn.Workspace); errors.Is(err, sql.ErrNoRows) {
			return notFound(sn.SessionID)
		} else if err != nil {
			return fmt.Errorf("record checkpoint of session %s: %w", sn.SessionID, err)
		}
		for range 5 {
			sn.ID = newSnapshotID()
			res, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO snapshots (id, session_id, workspace, turn, kind,
				prompt, messages, commit_id, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				sn.ID, sn.SessionID, sn.Workspace, sn.Turn, sn.Kind, sn.Prompt, sn.Messages, sn.Commit, sn.Time.UnixNano())
			if err != nil {
				return fmt.Errorf("record checkpoint of session %s: %w", sn.SessionID, err)
			}
			if n, _ := res.RowsAffected(); n == 1 {
				return nil
			}
		}
		return fmt.Errorf("record checkpoint of session %s: no free id", sn.SessionID)
	})
	return sn, err
}

const snapshotColumns = `id, session_id, workspace, turn, kind, prompt, messages, commit_id, created_at`

func scanSnapshots(rows *sql.Rows) ([]Snapshot, error) {
	defer rows.Close()
	var out []Snapshot
	for rows.Next() {
		var sn Snapshot
		var at int64
		if err := rows.Scan(&sn.ID, &sn.SessionID, &sn.Workspace, &sn.Turn, &sn.Kind, &sn.Prompt,
			&sn.Messages, &sn.Commit, &at); err != nil {
			return nil, fmt.Errorf("read checkpoints: %w", err)
		}
		sn.Time = time.Unix(0, at)
		out = append(out, sn)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("read checkpoints: %w", err)
	}
	return out, nil
}

// Snapshots returns the snapshots of session sessionID (a full id or a
// unique prefix), or of every session of workspace (compared as the OS
// compares paths) when sessionID is "", oldest first. Errors wrap
// ErrNotFound or ErrAmbiguous.
func (s *Store) Snapshots(ctx context.Context, sessionID, workspace string) ([]Snapshot, error) {
	var out []Snapshot
	err := s.read(ctx, func(tx *sql.Tx) error {
		where, arg := `session_id IN (SELECT id FROM sessions WHERE workspace_key = ?)`, s.style.Key(workspace)
		if sessionID != "" {
			id, err := resolveID(ctx, tx, sessionID)
			if err != nil {
				return err
			}
			where, arg = `session_id = ?`, id
		}
		rows, err := tx.QueryContext(ctx, `SELECT `+snapshotColumns+` FROM snapshots WHERE `+where+
			` ORDER BY created_at, rowid`, arg)
		if err != nil {
			return fmt.Errorf("list checkpoints: %w", err)
		}
		out, err = scanSnapshots(rows)
		return err
	})
	return out, err
}

// SnapshotByID returns the snapshot id names (the full id or a unique
// prefix). Errors wrap ErrUnknownSnapshot (naming the id) or
// ErrAmbiguous.
func (s *Store) SnapshotByID(ctx context.Context, id string) (Snapshot, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if id == "" {
		return Snapshot{}, fmt.Errorf("%w: no checkpoint id given: run aidex checkpoints list", ErrUnknownSnapshot)
	}
	var found []Snapshot
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT `+snapshotColumns+` FROM snapshots WHERE id >= ? AND id < ?
			ORDER BY id LIMIT 2`, id, id+"\x7f")
		if err != nil {
			return fmt.Errorf("look up checkpoint %q: %w", id, err)
		}
		found, err = scanSnapshots(rows)
		return err
	})
	switch {
	case err != nil:
		return Snapshot{}, err
	case len(found) == 0 || !strings.HasPrefix(found[0].ID, id):
		return Snapshot{}, fmt.Errorf("%w %q: run aidex checkpoints list", ErrUnknownSnapshot, id)
	case len(found) > 1 && strings.HasPrefix(found[1].ID, id):
		return Snapshot{}, fmt.Errorf("%w: checkpoint id %q matches %s and %s: give more characters",
			ErrAmbiguous, id, found[0].ID, found[1].ID)
	}
	return found[0], nil
}

// DeleteSnapshot drops the record of snapshot id (a full id); the shadow
// repository keeps its commit.
func (s *Store) DeleteSnapshot(ctx context.Context, id string) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM snapshots WHERE id = ?`, id); err != nil {
			return fmt.Errorf("drop checkpoint %s: %w", id, err)
		}
		return nil
	})
}

// LastFileCheckpointTurn returns the last turn of session id (a full id)
// with per-file checkpoints (the store's undo records of earlier
// versions); ok is false when it has none.
func (s *Store) LastFileCheckpointTurn(ctx context.Context, id string) (turn int64, ok bool, err error) {
	var last sql.NullInt64
	err = s.db.QueryRowContext(ctx, `SELECT MAX(turn) FROM checkpoints WHERE session_id = ?`, id).Scan(&last)
	if err != nil {
		return 0, false, fmt.Errorf("undo in session %s: %w", id, err)
	}
	return last.Int64, last.Valid, nil
}

// TruncateMessages cuts session id's conversation (a full id) to its
// first keep messages. Errors wrap ErrNotFound; keep beyond the
// conversation's length is an error naming both.
func (s *Store) TruncateMessages(ctx context.Context, id string, keep int) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE session_id = ?`, id).Scan(&n); err != nil {
			return fmt.Errorf("cut the conversation of session %s: %w", id, err)
		}
		if keep < 0 || keep > n {
			return fmt.Errorf("cut the conversation of session %s to %d messages: it has only %d", id, keep, n)
		}
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ? WHERE id = ?`, s.now().UnixNano(), id)
		if err := checkUpdated(res, err, id, "cut the conversation"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ? AND seq IN
			(SELECT seq FROM messages WHERE session_id = ? ORDER BY seq LIMIT -1 OFFSET ?)`, id, id, keep); err != nil {
			return fmt.Errorf("cut the conversation of session %s: %w", id, err)
		}
		return nil
	})
}
