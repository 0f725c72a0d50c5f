package session

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/zelvior/aidex/internal/atomicfile"

	"github.com/zelvior/aidex/internal/tools"
)

// ErrNothingToUndo is wrapped by [Store.Undo]'s error when the session has
// no file checkpoints left.
var ErrNothingToUndo = errors.New("nothing to undo")

// Tracker returns the persistent [tools.ReadTracker] of session sessionID
// (a full id). Its methods fail with an error wrapping [ErrNotFound] when
// the session does not exist.
func (s *Store) Tracker(sessionID string) tools.ReadTracker {
	return readTracker{s: s, id: sessionID}
}

type readTracker struct {
	s  *Store
	id string
}

// RecordRead stores the stamp of path for the session, replacing any
// earlier one.
func (t readTracker) RecordRead(ctx context.Context, path string, st tools.FileStamp) error {
	var mtime int64
	if !st.ModTime.IsZero() {
		mtime = st.ModTime.UnixNano()
	}
	return t.s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `INSERT INTO reads (session_id, path, size, mtime_ns, sha256)
			SELECT id, ?, ?, ?, ? FROM sessions WHERE id = ?
			ON CONFLICT (session_id, path) DO UPDATE SET size = excluded.size,
				mtime_ns = excluded.mtime_ns, sha256 = excluded.sha256`,
			path, st.Size, mtime, st.SHA256[:], t.id)
		return checkUpdated(res, err, t.id, "record read")
	})
}

// LastRead returns the stamp recorded for path; ok is false when there is
// none.
func (t readTracker) LastRead(ctx context.Context, path string) (tools.FileStamp, bool, error) {
	var (
		st    tools.FileStamp
		mtime int64
		sum   []byte
	)
	err := t.s.db.QueryRowContext(ctx, `SELECT size, mtime_ns, sha256 FROM reads WHERE session_id = ? AND path = ?`,
		t.id, path).Scan(&st.Size, &mtime, &sum)
	if errors.Is(err, sql.ErrNoRows) {
		return tools.FileStamp{}, false, nil
	}
	if err != nil {
		return tools.FileStamp{}, false, fmt.Errorf("look up read of %s in session %s: %w", path, t.id, err)
	}
	if len(sum) != len(st.SHA256) {
		return tools.FileStamp{}, false, fmt.Errorf("read record of %s in session %s is corrupt: %d-byte hash", path, t.id, len(sum))
	}
	copy(st.SHA256[:], sum)
	if mtime != 0 {
		st.ModTime = time.Unix(0, mtime)
	}
	return st, true, nil
}

// Forget drops the record for path; forgetting an unknown path is not an
// error.
func (t readTracker) Forget(ctx context.Context, path string) error {
	return t.s.write(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM reads WHERE session_id = ? AND path = ?`, t.id, path); err != nil {
			return fmt.Errorf("forget read of %s in session %s: %w", path, t.id, err)
		}
		return nil
	})
}

// Checkpoints returns the persistent [tools.Checkpointer] of session
// sessionID (a full id). Each checkpoint is filed under the session's
// current turn (the number of user messages appended so far, never
// reduced by compaction); within a turn only the first checkpoint of a
// path is kept, as that is the state /undo restores. Save fails with an
// error wrapping [ErrNotFound] when the session does not exist.
func (s *Store) Checkpoints(sessionID string) tools.Checkpointer {
	return checkpointer{s: s, id: sessionID}
}

type checkpointer struct {
	s  *Store
	id string
}

// Save records old (the content before the change; nil when !existed) of
// the absolute path.
func (c checkpointer) Save(ctx context.Context, path string, old []byte, existed bool) error {
	var content any // NULL when the file did not exist
	if existed {
		if old == nil {
			old = []byte{}
		}
		content = old
	}
	return c.s.write(ctx, func(tx *sql.Tx) error {
		var turn int64
		err := tx.QueryRowContext(ctx, `SELECT turn FROM sessions WHERE id = ?`, c.id).Scan(&turn)
		if errors.Is(err, sql.ErrNoRows) {
			return notFound(c.id)
		}
		if err != nil {
			return fmt.Errorf("checkpoint %s in session %s: %w", path, c.id, err)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO checkpoints (session_id, turn, path, existed, content, created_at)
			SELECT ?, ?, ?, ?, ?, ? WHERE NOT EXISTS
				(SELECT 1 FROM checkpoints WHERE session_id = ? AND turn = ? AND path = ?)`,
			c.id, turn, path, existed, content, c.s.now().UnixNano(), c.id, turn, path)
		if err != nil {
			return fmt.Errorf("checkpoint %s in session %s: %w", path, c.id, err)
		}
		return nil
	})
}

// checkpoint is one stored file state.
type checkpoint struct {
	path    string
	existed bool
	content []byte
}

// Undo restores the files changed in the session's last turn that has
// checkpoints to their state before that turn: a file that existed gets its
// old content back (written atomically, keeping its current mode, 0644 when
// it is gone), a file the turn created is deleted. It then drops those
// checkpoints, so the next Undo goes one turn further back. It returns the
// restored paths (absolute) in the order they were first changed.
//
// sessionID is a full id or a unique prefix. Errors wrap [ErrNotFound],
// [ErrAmbiguous] or [ErrNothingToUndo]. When a file cannot be restored the
// others still are, the error names each failure, and the checkpoints are
// kept so Undo can be retried.
//
// Undo changes files only; the conversation keeps its messages.
func (s *Store) Undo(ctx context.Context, sessionID string) ([]string, error) {
	undone, err := s.UndoTurn(ctx, sessionID)
	paths := make([]string, len(undone))
	for i, u := range undone {
		paths[i] = u.Path
	}
	return paths, err
}

// Undone is one file [Store.UndoTurn] put back: Path (absolute), and
// Deleted when the turn had created it (so undoing removed it).
type Undone struct {
	Path    string
	Deleted bool
}

// UndoTurn is [Store.Undo], reporting for each file whether it was
// restored or deleted.
func (s *Store) UndoTurn(ctx context.Context, sessionID string) ([]Undone, error) {
	id, turn, cps, err := s.lastTurnCheckpoints(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	var undone []Undone
	var errs []error
	for _, cp := range cps {
		if err := restore(cp); err != nil {
			errs = append(errs, err)
			continue
		}
		undone = append(undone, Undone{Path: cp.path, Deleted: !cp.existed})
	}
	if len(errs) > 0 {
		return undone, fmt.Errorf("undo turn %d of session %s: %w", turn, id, errors.Join(errs...))
	}
	err = s.write(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM checkpoints WHERE session_id = ? AND turn = ?`, id, turn)
		return err
	})
	if err != nil {
		return undone, fmt.Errorf("undo turn %d of session %s: files restored, but dropping the checkpoints failed: %w", turn, id, err)
	}
	return undone, nil
}

// lastTurnCheckpoints returns the session's id, its last turn with
// checkpoints and that turn's first checkpoint of each path, oldest first.
func (s *Store) lastTurnCheckpoints(ctx context.Context, sessionID string) (string, int64, []checkpoint, error) {
	var (
		id   string
		turn int64
		cps  []checkpoint
	)
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		if id, err = resolveID(ctx, tx, sessionID); err != nil {
			return err
		}
		var last sql.NullInt64
		if err := tx.QueryRowContext(ctx, `SELECT MAX(turn) FROM checkpoints WHERE session_id = ?`, id).Scan(&last); err != nil {
			return fmt.Errorf("undo in session %s: %w", id, err)
		}
		if !last.Valid {
			return fmt.Errorf("%w: session %s has no file changes left to revert", ErrNothingToUndo, id)
		}
		turn = last.Int64
		cps, err = turnCheckpoints(ctx, tx, id, turn)
		return err
	})
	return id, turn, cps, err
}

func turnCheckpoints(ctx context.Context, tx *sql.Tx, id string, turn int64) ([]checkpoint, error) {
	rows, err := tx.QueryContext(ctx, `SELECT path, existed, content FROM checkpoints
		WHERE session_id = ? AND turn = ? ORDER BY id`, id, turn)
	if err != nil {
		return nil, fmt.Errorf("undo in session %s: %w", id, err)
	}
	defer rows.Close()
	seen := map[string]bool{}
	var out []checkpoint
	for rows.Next() {
		var cp checkpoint
		if err := rows.Scan(&cp.path, &cp.existed, &cp.content); err != nil {
			return nil, fmt.Errorf("undo in session %s: %w", id, err)
		}
		if seen[cp.path] {
			continue // the earliest checkpoint of a path wins
		}
		seen[cp.path] = true
		out = append(out, cp)
	}
	return out, rows.Err()
}

// restore puts one file back to its checkpointed state.
func restore(cp checkpoint) error {
	if !cp.existed {
		if err := os.Remove(cp.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s (created in that turn): %w", cp.path, err)
		}
		return nil
	}
	perm := fs.FileMode(0o644)
	if fi, err := os.Stat(cp.path); err == nil {
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("restore %s: it is no longer a regular file (%s); move it away and retry", cp.path, fi.Mode().Type())
		}
		perm = fi.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(cp.path), 0o755); err != nil {
		return fmt.Errorf("restore %s: %w", cp.path, err)
	}
	if err := atomicfile.WriteFile(cp.path, cp.content, perm); err != nil {
		return fmt.Errorf("restore %s: %w", cp.path, err)
	}
	return nil
}
