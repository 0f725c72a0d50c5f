package bigrepo

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/file"
	"github.com/zelvior/aidex/internal/tools/info"
	"github.com/zelvior/aidex/internal/tools/search"
)

// small is the tree of the benchmarks: a 1/25 scale model of Full, so
// `go test -bench` stays quick.
var small = Config{Files: 4000, Bytes: 60_000_000, IgnoredShare: 0.4, Seed: 21}

// benchTree returns the tree of the benchmarks: $BIGREPO_TREE when set
// (e.g. the full tree bench/bigrepo.sh made), else a new small tree.
func benchTree(b *testing.B) string {
	if dir := os.Getenv("BIGREPO_TREE"); dir != "" {
		return dir
	}
	if testing.Short() {
		b.Skip("generates a 60 MB tree; set BIGREPO_TREE to use an existing one")
	}
	root, _ := newTree(b, small)
	return root
}

// newTree generates a tree of c in a temporary directory.
func newTree(tb testing.TB, c Config) (string, Stats) {
	tb.Helper()
	root := filepath.Join(tb.TempDir(), "repo")
	st, err := Generate(root, c)
	require.NoError(tb, err)
	return root, st
}

func TestGenerateIsDeterministicAndIgnoresNodeModules(t *testing.T) {
	c := Config{Files: 300, Bytes: 3_000_000, IgnoredShare: 0.4, Seed: 7}
	a, sa := newTree(t, c)
	b, sb := newTree(t, c)
	require.Equal(t, sa, sb)
	require.Equal(t, 300, sa.Files)
	require.InDelta(t, 3_000_000, sa.Bytes, 300_000)
	require.Equal(t, 180, sa.SearchedFiles)
	for _, rel := range []string{"services/svc00/internal/alpha0/alpha_0.go", "node_modules/alpha-0/lib/sub0/alpha0.js"} {
		x, err := os.ReadFile(filepath.Join(a, rel))
		require.NoError(t, err)
		y, err := os.ReadFile(filepath.Join(b, rel))
		require.NoError(t, err)
		require.Equal(t, x, y, rel)
	}
	gi, err := os.ReadFile(filepath.Join(a, ".gitignore"))
	require.NoError(t, err)
	require.Contains(t, string(gi), "node_modules/\n")
}

func TestGenerateRefusesBadConfigAndFullDirectory(t *testing.T) {
	_, err := Generate(t.TempDir(), Config{Files: 1, Bytes: 10})
	require.ErrorContains(t, err, "Files ≥ 10")
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "x"), nil, 0o644))
	_, err = Generate(dir, Config{Files: 10, Bytes: 10_000})
	require.ErrorContains(t, err, "not empty")
}

// benchPatterns are the searches of the benchmarks: the literal, the
// issue's regex (its only literal is one byte) and a regex with no
// literal at all.
var benchPatterns = []struct{ name, pattern string }{
	{"literal", Needle},
	{"regex", RegexNeedle},
	{"regex-noliteral", NoLiteralRegex},
}

// BenchmarkGrep searches the small tree with the Go backend, the ripgrep
// backend and a bare `rg -n` (the last two skipped without rg).
func BenchmarkGrep(b *testing.B) {
	root := benchTree(b)
	rg, rgErr := exec.LookPath("rg")
	for _, p := range benchPatterns {
		req := tools.GrepRequest{Root: root, Pattern: p.pattern, Limit: 5000}
		b.Run(p.name+"/go", func(b *testing.B) {
			for b.Loop() {
				if r, err := (search.GoGrep{}).Search(context.Background(), req); err != nil || r.Matches == 0 {
					b.Fatal(err, r.Matches)
				}
			}
		})
		b.Run(p.name+"/rg-backend", func(b *testing.B) {
			if rgErr != nil {
				b.Skip("rg not installed")
			}
			for b.Loop() {
				if r, err := (search.Ripgrep{Path: rg}).Search(context.Background(), req); err != nil || r.Matches == 0 {
					b.Fatal(err, r.Matches)
				}
			}
		})
		b.Run(p.name+"/rg", func(b *testing.B) {
			if rgErr != nil {
				b.Skip("rg not installed")
			}
			for b.Loop() {
				cmd := exec.Command(rg, "-n", "--no-require-git", "-e", p.pattern, root)
				cmd.Stdout = io.Discard
				require.NoError(b, cmd.Run())
			}
		})
	}
}

// BenchmarkTreeTools runs search_files, list_directory and
// analyze_project on the small tree as a model calls them.
func BenchmarkTreeTools(b *testing.B) {
	root := benchTree(b)
	ws, err := permission.NewWorkspace(root, permission.WorkspaceOptions{})
	require.NoError(b, err)
	reg := tools.NewRegistry()
	require.NoError(b, reg.Register(append(file.Tools(), info.Tools()...)...))
	env := tools.NewEnv(ws)
	calls := []struct{ name, args, want string }{
		{"search_files", `{"pattern":"**/*.go"}`, ".go\n"},
		{"list_directory", `{}`, "services/"},
		{"analyze_project", `{}`, "Go"},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				p, err := reg.Prepare(c.name, []byte(c.args))
				require.NoError(b, err)
				r := p.Run(context.Background(), env)
				if !r.OK || !strings.Contains(r.Output, c.want) || strings.Contains(r.Output, "node_modules") {
					b.Fatalf("%s: %+v", c.name, r)
				}
			}
		})
	}
}
