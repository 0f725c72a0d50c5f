package session

import (
	"context"
	"database/sql"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/ospath"
)

// TestDSNPathForms pins the data source name for every path form of every
// OS, whichever OS runs the test: SQLite must see an empty authority (or
// none), the path percent-decoded back to what was given, and the pragmas.
func TestDSNPathForms(t *testing.T) {
	cases := []struct {
		name    string
		st      ospath.Style
		path    string
		want    string // the URI up to the query
		sqlPath string // the path SQLite opens after decoding
	}{
		{"windows drive", ospath.Windows, `C:\Users\a\AppData\Local\aidex\sessions.db`,
			"file:///C:/Users/a/AppData/Local/aidex/sessions.db", "/C:/Users/a/AppData/Local/aidex/sessions.db"},
		{"windows lower drive, forward slashes", ospath.Windows, `d:/data/aidex/sessions.db`,
			"file:///d:/data/aidex/sessions.db", "/d:/data/aidex/sessions.db"},
		{"windows UNC", ospath.Windows, `\\server\share\x\sessions.db`,
			"file:////server/share/x/sessions.db", "//server/share/x/sessions.db"},
		{"windows spaces and escapes", ospath.Windows, `C:\Users\Jo Doe\100% #1?\sessions.db`,
			"file:///C:/Users/Jo%20Doe/100%25%20%231%3F/sessions.db", "/C:/Users/Jo Doe/100% #1?/sessions.db"},
		{"unix", ospath.Unix, "/home/a/.local/share/aidex/sessions.db",
			"file:///home/a/.local/share/aidex/sessions.db", "/home/a/.local/share/aidex/sessions.db"},
		{"unix escapes", ospath.Unix, "/tmp/a b/100%/#x?/sessions.db",
			"file:///tmp/a%20b/100%25/%23x%3F/sessions.db", "/tmp/a b/100%/#x?/sessions.db"},
		{"unix backslash is a name byte", ospath.Unix, `/tmp/a\b/sessions.db`,
			"file:///tmp/a%5Cb/sessions.db", `/tmp/a\b/sessions.db`},
		{"darwin", ospath.Darwin, "/Users/a/Library/Application Support/aidex/sessions.db",
			"file:///Users/a/Library/Application%20Support/aidex/sessions.db", "/Users/a/Library/Application Support/aidex/sessions.db"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := dsn(c.path, c.st)
			uri, query, ok := strings.Cut(got, "?")
			require.True(t, ok, "no query in %s", got)
			require.Equal(t, c.want, uri)
			u, err := url.Parse(got)
			require.NoError(t, err)
			require.Equal(t, "file", u.Scheme)
			require.Empty(t, u.Host, "SQLite rejects any authority but localhost: %s", got)
			require.Equal(t, c.sqlPath, u.Path)
			q, err := url.ParseQuery(query)
			require.NoError(t, err)
			require.Contains(t, q["_pragma"], "journal_mode(WAL)")
			require.Equal(t, "immediate", q.Get("_txlock"))
		})
	}
}

// TestDSNOpensOddNames opens a store in a directory whose name needs every
// escape, through the DSN of this OS.
func TestDSNOpensOddNames(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "a b", "100% #1")
	if ospath.Native() != ospath.Windows {
		dir = filepath.Join(dir, "q?")
	}
	s, err := Open(context.Background(), dir)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = os.Stat(filepath.Join(dir, FileName))
	require.NoError(t, err)
	db, err := sql.Open("sqlite", dsn(filepath.Join(dir, FileName), ospath.Native()))
	require.NoError(t, err)
	defer db.Close()
	var v int
	require.NoError(t, db.QueryRow("PRAGMA user_version").Scan(&v))
	require.Equal(t, schemaVersion, v)
}

// TestConnectionsKeepASmallPageCache checks that every connection of the
// store keeps SQLite's page cache at 256 KiB instead of the default 2 MB:
// the store is appended to for a session's life and read once on resume,
// and each connection's full cache sat in aidex's resident memory (issue
// 40: ~3.4 MiB of the 500-turn session's peak, docs/benchmarks.md).
func TestConnectionsKeepASmallPageCache(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	// Two connections at once, so that the pool opens a second one.
	c1, err := s.db.Conn(ctx)
	require.NoError(t, err)
	defer c1.Close()
	c2, err := s.db.Conn(ctx)
	require.NoError(t, err)
	defer c2.Close()
	for _, c := range []*sql.Conn{c1, c2} {
		var kib int
		require.NoError(t, c.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&kib))
		require.Equal(t, -pageCacheKiB, kib, "PRAGMA cache_size (negative: KiB)")
	}
	require.Equal(t, 256, pageCacheKiB)
}
