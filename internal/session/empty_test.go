package session

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

// A session with no message is never the latest and never listed, by
// every way a session can end up empty (created and left, rewound or
// compacted to nothing); --continue and the listings find the real
// conversation instead. Its id stays valid: it loads, takes messages, and
// once it has one it is the latest and listed.
func TestEmptySessionIsNeverLatestNorListed(t *testing.T) {
	ctx := context.Background()
	for name, empty := range map[string]func(t *testing.T, s *Store) string{
		"created and left": func(t *testing.T, s *Store) string { return newSession(t, s, "/w").ID },
		"compacted to nothing": func(t *testing.T, s *Store) string {
			sess := newSession(t, s, "/w")
			require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("gone"), nil))
			require.NoError(t, s.ReplaceMessages(ctx, sess.ID, nil))
			return sess.ID
		},
		"rewound to the start": func(t *testing.T, s *Store) string {
			sess := newSession(t, s, "/w")
			require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("gone"), nil))
			_, err := s.db.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, sess.ID)
			require.NoError(t, err)
			return sess.ID
		},
	} {
		t.Run(name, func(t *testing.T) {
			s, _ := openTest(t)
			real := newSession(t, s, "/w")
			require.NoError(t, s.AppendMessage(ctx, real.ID, llm.UserText("the real conversation"), nil))
			id := empty(t, s)

			latest, err := s.Latest(ctx, "/w")
			require.NoError(t, err)
			require.Equal(t, real.ID, latest.ID, "-c resumed the empty session")
			lid, err := s.LatestID(ctx, "/w")
			require.NoError(t, err)
			require.Equal(t, real.ID, lid)
			for _, opt := range []ListOptions{{Workspace: "/w"}, {All: true}} {
				list, err := s.List(ctx, opt)
				require.NoError(t, err)
				require.Equal(t, []string{real.ID}, ids(list), "the empty session is listed")
			}

			got, err := s.Load(ctx, id)
			require.NoError(t, err, "the empty session's id stays valid")
			require.Empty(t, got.Messages)
			require.NoError(t, s.AppendMessage(ctx, id, llm.UserText("now it has one"), nil))
			lid, err = s.LatestID(ctx, "/w")
			require.NoError(t, err)
			require.Equal(t, id, lid)
		})
	}

	s, _ := openTest(t)
	newSession(t, s, "/only-empty")
	_, err := s.Latest(ctx, "/only-empty")
	require.ErrorIs(t, err, ErrNotFound)
	require.ErrorContains(t, err, "no session to continue in /only-empty")
}

// Open removes empty sessions last changed over a day ago (with their
// checkpoints and read records), and keeps younger empty ones and every
// session with a message, however old.
func TestOpenRemovesOldEmptySessions(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, dir)
	require.NoError(t, err)
	clock := time.Now().Add(-49 * time.Hour)
	s.now = func() time.Time { return clock }
	oldEmpty := newSession(t, s, "/w")
	require.NoError(t, s.Checkpoints(oldEmpty.ID).Save(ctx, "/w/a", []byte("a"), true))
	oldReal := newSession(t, s, "/w")
	require.NoError(t, s.AppendMessage(ctx, oldReal.ID, llm.UserText("old but real"), nil))
	clock = time.Now().Add(-23 * time.Hour)
	youngEmpty := newSession(t, s, "/w")
	require.NoError(t, s.Close())

	s, err = Open(ctx, dir)
	require.NoError(t, err)
	defer s.Close()
	_, err = s.Info(ctx, oldEmpty.ID)
	require.ErrorIs(t, err, ErrNotFound, "an empty session from two days ago was kept")
	require.Equal(t, 0, count(t, s, "checkpoints", oldEmpty.ID))
	for _, id := range []string{oldReal.ID, youngEmpty.ID} {
		_, err = s.Info(ctx, id)
		require.NoError(t, err)
	}
}

// The process that handed out a session's id keeps it valid even when
// another aidex removed the session as an old empty one meanwhile (a web
// chat opened and left for over a day): the id loads, and the first
// message brings the session back under its id, workspace and model.
func TestHandedOutIDSurvivesRemoval(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	clock := time.Now().Add(-49 * time.Hour)
	s.now = func() time.Time { return clock }
	sess, err := s.Create(ctx, "/w", "openai", "gpt-5")
	require.NoError(t, err)
	other, err := Open(ctx, dir) // another aidex starts: removes it
	require.NoError(t, err)
	_, err = other.Info(ctx, sess.ID)
	require.ErrorIs(t, err, ErrNotFound)

	clock = time.Now()
	got, err := s.Load(ctx, sess.ID)
	require.NoError(t, err)
	require.Empty(t, got.Messages)
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("hello"), nil))
	sum, err := other.Info(ctx, sess.ID)
	require.NoError(t, err)
	require.Equal(t, "/w", sum.Workspace)
	require.Equal(t, "gpt-5", sum.Model)
	require.Equal(t, 1, sum.Messages)
	require.NoError(t, other.Close())

	// An explicit delete is final, even for the process that made it.
	require.NoError(t, s.Delete(ctx, sess.ID))
	require.ErrorIs(t, s.AppendMessage(ctx, sess.ID, llm.UserText("again"), nil), ErrNotFound)
}

// Deleting a large session returns its space: the database file shrinks.
// A new database is created with incremental auto-vacuum.
func TestDeleteShrinksTheFile(t *testing.T) {
	s, dir := openTest(t)
	ctx := context.Background()
	require.Equal(t, 2, autoVacuum(t, s.db), "a new database is not incremental auto-vacuum")
	keep := newSession(t, s, "/w")
	require.NoError(t, s.AppendMessage(ctx, keep.ID, llm.UserText("small"), nil))
	big := newSession(t, s, "/w")
	chunk := strings.Repeat("log line of a big piped file\n", 20000) // ~580 KB
	for range 10 {
		require.NoError(t, s.AppendMessage(ctx, big.ID, llm.UserText(chunk), nil))
	}
	path := filepath.Join(dir, FileName)
	before := fileSize(t, s, path)
	require.Greater(t, before, int64(5<<20))
	require.NoError(t, s.Delete(ctx, big.ID))
	after := fileSize(t, s, path)
	require.Less(t, after, before/10, "the file kept %d of %d bytes after the delete", after, before)
}

// fileSize is the size of the database file once the WAL is written back.
func fileSize(t *testing.T, s *Store, path string) int64 {
	t.Helper()
	_, err := s.db.Exec("PRAGMA wal_checkpoint(TRUNCATE)")
	require.NoError(t, err)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	return fi.Size()
}

// A database from before incremental auto-vacuum is not rewritten at
// start (a VACUUM takes seconds on a big file): its first delete switches
// it on, keeping the rest of its data, and shrinks the file.
func TestFirstDeleteSwitchesOldDatabaseToIncrementalVacuum(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, dir)
	require.NoError(t, err)
	keep := newSession(t, s, "/w")
	require.NoError(t, s.AppendMessage(ctx, keep.ID, llm.UserText("kept"), nil))
	big := newSession(t, s, "/w")
	for range 10 {
		require.NoError(t, s.AppendMessage(ctx, big.ID, llm.UserText(strings.Repeat("big piped log\n", 40000)), nil))
	}
	// Make it what an earlier aidex left: no auto-vacuum, schema 5.
	conn, err := s.db.Conn(ctx)
	require.NoError(t, err)
	for _, q := range []string{"PRAGMA auto_vacuum = NONE", "VACUUM", "PRAGMA user_version = 5"} {
		_, err = conn.ExecContext(ctx, q)
		require.NoError(t, err)
	}
	require.NoError(t, conn.Close())
	require.Equal(t, 0, autoVacuum(t, s.db))
	require.NoError(t, s.Close())

	s, err = Open(ctx, dir)
	require.NoError(t, err)
	defer s.Close()
	require.Equal(t, 0, autoVacuum(t, s.db), "Open rewrote the database")
	path := filepath.Join(dir, FileName)
	before := fileSize(t, s, path)
	require.NoError(t, s.Delete(ctx, big.ID))
	require.Equal(t, 2, autoVacuum(t, s.db), "auto_vacuum is not INCREMENTAL after the first delete")
	after := fileSize(t, s, path)
	require.Less(t, after, before/10, "the file kept %d of %d bytes after the delete", after, before)
	got, err := s.Load(ctx, keep.ID)
	require.NoError(t, err)
	require.Equal(t, "kept", got.Messages[0].Text())
}

func autoVacuum(t *testing.T, db *sql.DB) int {
	t.Helper()
	var v int
	require.NoError(t, db.QueryRow("PRAGMA auto_vacuum").Scan(&v))
	return v
}

// The start-up check for old empty sessions reads the partial index of
// empty sessions, never the whole sessions table: its cost does not grow
// with the sessions kept.
func TestOldEmptyCheckUsesItsIndex(t *testing.T) {
	s, _ := openTest(t)
	rows, err := s.db.Query(`EXPLAIN QUERY PLAN SELECT EXISTS (SELECT 1 FROM sessions WHERE message_count = 0 AND updated_at < ?)`, 0)
	require.NoError(t, err)
	defer rows.Close()
	var plan []string
	for rows.Next() {
		var id, parent, notused int
		var detail string
		require.NoError(t, rows.Scan(&id, &parent, &notused, &detail))
		plan = append(plan, detail)
	}
	require.NoError(t, rows.Err())
	joined := strings.Join(plan, "; ")
	require.Contains(t, joined, "USING COVERING INDEX sessions_empty", "plan: %s", joined)
	require.NotContains(t, joined, "SCAN sessions", "plan: %s", joined)
}

// BenchmarkOldEmptyCheck measures Open's check for old empty sessions in
// a database of 5,000 old sessions with messages and a few young empty
// ones (nothing to remove): it must not grow with the sessions kept.
func BenchmarkOldEmptyCheck(b *testing.B) {
	s, _ := openTest(b)
	ctx := context.Background()
	err := s.write(ctx, func(tx *sql.Tx) error {
		old := time.Now().Add(-72 * time.Hour).UnixNano()
		for i := range 5000 {
			id := fmt.Sprintf("s_bench%05d", i)
			if _, err := tx.Exec(`INSERT INTO sessions (id, workspace, created_at, updated_at) VALUES (?, '/w', ?, ?)`, id, old, old); err != nil {
				return err
			}
			if _, err := tx.Exec(`INSERT INTO messages (session_id, seq, role, parts, created_at) VALUES (?, 1, 'user', '[]', ?)`, id, old); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	for range 3 {
		newSession(b, s, "/w")
	}
	b.ResetTimer()
	for b.Loop() {
		if err := s.removeOldEmpty(ctx); err != nil {
			b.Fatal(err)
		}
	}
}
