package walk

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		pattern, rel string
		want         bool
	}{
		{"*.go", "a/b/c.go", true},
		{"*.go", "a/b/c.txt", false},
		{"cmd/**/*.go", "cmd/x/main.go", true},
		{"cmd/**/*.go", "pkg/main.go", false},
		{"!*_test.go", "a/x_test.go", false},
		{"!*_test.go", "a/x.go", true},
		{"./src/*.ts", "src/a.ts", true},
	} {
		g, ok := NewGlob(c.pattern)
		require.True(t, ok, c.pattern)
		require.Equal(t, c.want, g.Match(c.rel), "%s %s", c.pattern, c.rel)
	}
	_, ok := NewGlob("[")
	require.False(t, ok)
	_, ok = NewGlob("")
	require.False(t, ok)
	require.True(t, (*Glob)(nil).Match("anything"), "a nil Glob matches everything")
	require.False(t, NewPathGlob("*.go").Match("a/b.go"), "a path glob matches the whole path")
}

func TestTreeHonoursGitignore(t *testing.T) {
	root := t.TempDir()
	for f, c := range map[string]string{
		".gitignore": "*.log\nbuild/\n", "a.go": "", "debug.log": "", "build/out.go": "",
		"sub/.gitignore": "local.txt\n", "sub/local.txt": "", "sub/b.go": "", ".git/config": "",
	} {
		p := filepath.Join(root, filepath.FromSlash(f))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(c), 0o644))
	}
	var mu sync.Mutex
	var got []string
	err := Tree(context.Background(), root, 0, func(abs, rel string, d fs.DirEntry) error {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, rel)
		return nil
	})
	require.NoError(t, err)
	slices.Sort(got)
	require.Equal(t, []string{".gitignore", "a.go", "sub", "sub/.gitignore", "sub/b.go"}, got)

	err = Tree(context.Background(), root, 0, func(_, _ string, d fs.DirEntry) error {
		if d.IsDir() {
			return ErrStop
		}
		return nil
	})
	require.ErrorIs(t, err, ErrStop, "ErrStop for a directory stops the walk")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	dirOnly := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(dirOnly, "d"), 0o755))
	require.ErrorIs(t, Tree(ctx, dirOnly, 0, func(string, string, fs.DirEntry) error { return nil }), context.Canceled)
}
