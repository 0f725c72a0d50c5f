package session

import (
	"context"
	"database/sql"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ospath"
)

// TestWorkspaceComparedAsTheOSDoes: every lookup by workspace (Latest,
// LatestID, List, Snapshots) finds a session under any spelling of its
// folder in the store's path style, and only there; the workspace is kept
// as given for display.
func TestWorkspaceComparedAsTheOSDoes(t *testing.T) {
	cases := []struct {
		st          ospath.Style
		created     string
		same, other []string
	}{
		{ospath.Windows, `C:\Code\Proj`,
			[]string{`c:\code\proj`, `C:/CODE/Proj/`, `C:\Code\x\..\Proj`},
			[]string{`D:\Code\Proj`, `C:\Code\Proj2`, `C:\Code`}},
		{ospath.Windows, `\\Server\Share\Ä`,
			[]string{`\\server\share\ä`, `//SERVER/SHARE/Ä/`},
			[]string{`\\server\share2\ä`}},
		{ospath.Darwin, "/Users/a/Code/Proj",
			[]string{"/users/a/code/proj", "/Users/a/Code/Proj/"},
			[]string{"/Users/a/Code/Proj2"}},
		{ospath.Unix, "/home/a/Proj",
			[]string{"/home/a/Proj/", "/home/a/x/../Proj"},
			[]string{"/home/a/proj", "/home/a/PROJ"}},
	}
	for _, c := range cases {
		t.Run(c.st.String()+" "+c.created, func(t *testing.T) {
			ctx := context.Background()
			s, err := openStyle(ctx, t.TempDir(), c.st)
			require.NoError(t, err)
			defer s.Close()
			sess, err := s.Create(ctx, c.created, "p", "m")
			require.NoError(t, err)
			require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("hi"), nil))
			_, err = s.AddSnapshot(ctx, Snapshot{SessionID: sess.ID, Turn: 1, Kind: SnapshotTurn, Commit: "c1"})
			require.NoError(t, err)
			for _, ws := range append([]string{c.created}, c.same...) {
				got, err := s.Latest(ctx, ws)
				require.NoError(t, err, ws)
				require.Equal(t, sess.ID, got.ID, ws)
				require.Equal(t, c.st.Clean(c.created), got.Workspace, "kept as given")
				id, err := s.LatestID(ctx, ws)
				require.NoError(t, err, ws)
				require.Equal(t, sess.ID, id)
				list, err := s.List(ctx, ListOptions{Workspace: ws})
				require.NoError(t, err, ws)
				require.Len(t, list, 1, ws)
				require.Equal(t, c.st.Clean(c.created), list[0].Workspace)
				sns, err := s.Snapshots(ctx, "", ws)
				require.NoError(t, err, ws)
				require.Len(t, sns, 1, ws)
			}
			for _, ws := range c.other {
				_, err := s.Latest(ctx, ws)
				require.ErrorIs(t, err, ErrNotFound, ws)
				list, err := s.List(ctx, ListOptions{Workspace: ws})
				require.NoError(t, err, ws)
				require.Empty(t, list, ws)
				sns, err := s.Snapshots(ctx, "", ws)
				require.NoError(t, err, ws)
				require.Empty(t, sns, ws)
			}
		})
	}
}

// TestWorkspaceRelativeInStyle: absolute is judged by the store's style.
func TestWorkspaceRelativeInStyle(t *testing.T) {
	ctx := context.Background()
	s, err := openStyle(ctx, t.TempDir(), ospath.Windows)
	require.NoError(t, err)
	defer s.Close()
	for _, ws := range []string{`C:proj`, `\code\proj`, `proj`, "/home/a"} {
		_, err := s.Create(ctx, ws, "p", "m")
		require.ErrorContains(t, err, "not an absolute path", ws)
	}
}

// TestWorkspaceKeysFilledOnOpen: sessions written before workspace keys
// get theirs on the next Open, in that Open's path style.
func TestWorkspaceKeysFilledOnOpen(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := openStyle(ctx, dir, ospath.Windows)
	require.NoError(t, err)
	sess, err := s.Create(ctx, `C:\Code\Proj`, "p", "m")
	require.NoError(t, err)
	require.NoError(t, s.AppendMessage(ctx, sess.ID, llm.UserText("hi"), nil))
	// As an older aidex left it.
	_, err = s.db.ExecContext(ctx, `UPDATE sessions SET workspace_key = NULL`)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	s, err = openStyle(ctx, dir, ospath.Windows)
	require.NoError(t, err)
	defer s.Close()
	got, err := s.Latest(ctx, `c:\code\proj`)
	require.NoError(t, err)
	require.Equal(t, sess.ID, got.ID)
	var key sql.NullString
	require.NoError(t, s.db.QueryRowContext(ctx, `SELECT workspace_key FROM sessions WHERE id = ?`, sess.ID).Scan(&key))
	require.Equal(t, `c:\code\proj`, key.String)
}
