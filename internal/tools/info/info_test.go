//go:build unix

package info

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"github.com/zelvior/aidex/internal/tools"
)

func TestGetFileInfo(t *testing.T) {
	f := newFixture(t)
	f.Write("src/main.go", "package main\n\nfunc main() {}")
	f.Write("bin.dat", "ab\x00cd")
	require.NoError(t, os.Symlink("src/main.go", filepath.Join(f.Root, "link.go")))

	r := f.OK("get_file_info", jobj{"path": "src/main.go"})
	for _, want := range []string{"path: src/main.go", "type: file", "size: 28 bytes", "mode: -rw-r--r-- (0644)", "lines: 3", "modified: "} {
		require.Contains(t, r.Output, want)
	}
	require.Equal(t, 3, r.Meta.Lines)
	r = f.OK("get_file_info", jobj{"path": "bin.dat"})
	require.Contains(t, r.Output, "content: binary")
	r = f.OK("get_file_info", jobj{"path": "src"})
	require.Contains(t, r.Output, "type: directory")
	require.Contains(t, r.Output, "entries: 1")
	r = f.OK("get_file_info", jobj{"path": "link.go"})
	require.Contains(t, r.Output, "type: symlink")
	require.Contains(t, r.Output, "link target: src/main.go (resolves to src/main.go)")
	require.Contains(t, r.Output, "lines: 3")

	f.Fail("get_file_info", jobj{"path": "missing"}, tools.CategoryNotFound)
	f.Fail("get_file_info", jobj{"path": "../outside"}, tools.CategorySecurity)
	require.NoError(t, os.Symlink(f.Outside, filepath.Join(f.Root, "escape")))
	f.Fail("get_file_info", jobj{"path": "escape"}, tools.CategorySecurity)
}

func TestCountLines(t *testing.T) {
	f := newFixture(t)
	f.Write(".gitignore", "vendor/\n*.log\n")
	f.Write("a.go", "1\n2\n3\n")
	f.Write("pkg/b.go", "1\n2")
	f.Write("pkg/c.py", "x\n")
	f.Write("vendor/big.go", strings.Repeat("v\n", 1000))
	f.Write("debug.log", strings.Repeat("l\n", 1000))
	f.Write("img.png", "\x89PNG\x00\x00")

	r := f.OK("count_lines", jobj{"path": "a.go"})
	require.Equal(t, "3 lines in a.go (6 B)", r.Output)
	r = f.OK("count_lines", jobj{"path": "pkg/b.go"})
	require.Equal(t, 2, r.Meta.Lines)

	r = f.OK("count_lines", jobj{})
	require.Equal(t, 3+2+1+2, r.Meta.Lines, r.Output) // .gitignore has 2 lines
	require.Contains(t, r.Output, "8 lines in 4 text files")
	require.Contains(t, r.Output, "(1 binary files skipped)")
	require.Regexp(t, `\s5\s+2 files\s+\.go\n`, r.Output)
	require.NotContains(t, r.Output, ".log")

	f.Fail("count_lines", jobj{"path": "img.png"}, tools.CategoryValidation)
	f.Fail("count_lines", jobj{"path": "nope"}, tools.CategoryNotFound)
	f.Fail("count_lines", jobj{"path": "/etc"}, tools.CategorySecurity)
}

func TestDiskUsage(t *testing.T) {
	f := newFixture(t)
	f.Write(".gitignore", "node_modules/\n")
	f.Write("node_modules/x/big.js", strings.Repeat("a", 5000))
	f.Write("src/a.go", strings.Repeat("b", 1000))
	f.Write("README", strings.Repeat("c", 10))

	r := f.OK("disk_usage", jobj{})
	lines := strings.Split(r.Output, "\n")
	require.Contains(t, lines[0], "5.9 KiB in 7 entries") // 5000+1000+10+14 bytes
	require.Contains(t, lines[1], "node_modules", "the largest entry first, ignored files included")
	require.Contains(t, lines[2], "1000 B")
	require.Contains(t, lines[2], "src")
	r = f.OK("disk_usage", jobj{"path": "README"})
	require.Contains(t, r.Output, "README: 10 B")
	f.Fail("disk_usage", jobj{"path": "../outside"}, tools.CategorySecurity)
}

func TestEnvInfoAndWhich(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-envinfo-secret-value")
	f := newFixture(t)
	r := f.OK("env_info", jobj{})
	for _, want := range []string{"os: ", "arch: ", "cpus: ", "workspace: " + f.Root, "git: ", "go: "} {
		require.Contains(t, r.Output, want)
	}
	require.NotContains(t, r.Output, "sk-envinfo-secret-value")

	r = f.OK("which", jobj{"name": "sh"})
	require.True(t, filepath.IsAbs(r.Output), r.Output)
	f.Fail("which", jobj{"name": "definitely-not-a-program-xyz"}, tools.CategoryNotFound)
	f.Fail("which", jobj{"name": "/bin/sh"}, tools.CategoryValidation)
	f.Fail("which", jobj{"name": "../sh"}, tools.CategoryValidation)
	f.Fail("which", jobj{"name": ""}, tools.CategoryValidation)
}

func TestHumanBytes(t *testing.T) {
	for n, want := range map[int64]string{0: "0 B", 1023: "1023 B", 1024: "1.0 KiB", 1536: "1.5 KiB", 5 << 20: "5.0 MiB", 3 << 30: "3.0 GiB"} {
		require.Equal(t, want, humanBytes(n))
	}
}

func TestAnalyzeProject(t *testing.T) {
	f := newFixture(t)
	f.Write(".gitignore", "node_modules/\ndist/\n")
	f.Write("go.mod", "module example.com/x\n\ngo 1.26\n")
	f.Write("main.go", strings.Repeat("// line\n", 10))
	f.Write("internal/store/store.go", strings.Repeat("x\n", 20))
	f.Write("internal/store/store_test.go", strings.Repeat("x\n", 5))
	f.Write("Makefile", "BIN := x\nbuild:\n\tgo build\ntest :\n\tgo test ./...\n")
	f.Write("web/package.json", `{"scripts": {"test": "vitest", "build": "vite build"}}`)
	f.Write("web/pnpm-lock.yaml", "")
	f.Write("web/src/app.ts", "let a = 1\nlet b = 2\n")
	f.Write("web/node_modules/dep/index.js", strings.Repeat("y\n", 5000))
	f.Write("dist/out.js", strings.Repeat("z\n", 5000))
	f.Write("tools/py/pyproject.toml", "[tool.pytest.ini_options]\n")
	f.Write("README.md", "# x\n")

	r := f.OK("analyze_project", jobj{})
	out := r.Output
	require.Regexp(t, `Go\s+3 files\s+35 lines`, out)
	require.Regexp(t, `TypeScript\s+1 files\s+2 lines`, out)
	require.NotContains(t, out, "JavaScript", "ignored directories are not counted")
	require.Contains(t, out, "Build and project files: Makefile, go.mod, web/package.json")
	for _, want := range []string{
		"build: go build ./...", "test:  go test ./...", "make build", "make test",
		"test (web): cd web && pnpm run test", "build (web): cd web && pnpm run build",
		"internal/ (2 files)", "    store/ (2 files)", "web/ (3 files)", "  README.md",
	} {
		require.Contains(t, out, want)
	}
	require.NotContains(t, out, "node_modules")
	require.NotContains(t, out, "dist/")
	require.NotContains(t, out, "pytest", "pyproject.toml two levels down is not a project build file")
}

func BenchmarkAnalyzeProject(b *testing.B) {
	root := b.TempDir()
	for i := range 200 {
		dir := filepath.Join(root, "pkg", string(rune('a'+i%26)), "sub")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "f"+strings.Repeat("x", i%7)+".go"), []byte(strings.Repeat("line\n", 200)), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	env := &tools.Env{Workspace: benchWorkspace{root}}
	for b.Loop() {
		if r := analyzeProject(b.Context(), env, tools.NoArgs{}); !r.OK {
			b.Fatal(r.Error)
		}
	}
}

// benchWorkspace is a minimal Resolver for benchmarks.
type benchWorkspace struct{ root string }

func (w benchWorkspace) Root() string { return w.root }

func (w benchWorkspace) Resolve(p string) (string, error) { return filepath.Join(w.root, p), nil }

func (w benchWorkspace) Rel(abs string) string {
	rel, err := filepath.Rel(w.root, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

func TestAnalyzeProjectLimits(t *testing.T) {
	f := newFixture(t)
	for i := range 20 {
		f.Write(fmt.Sprintf("pkg/f%02d.go", i), strings.Repeat("x\n", 50)) // 100 bytes each
	}
	lim := analyzeLimits{timeout: time.Minute, maxFiles: 1000, lineBudget: 500}
	r := analyzeProjectWith(context.Background(), f.Env, lim)
	require.True(t, r.OK)
	require.True(t, r.Meta.Truncated)
	require.Regexp(t, `Go\s+20 files\s+250 lines`, r.Output, "five files read within the budget")
	require.Contains(t, r.Output, "(15 files not line-counted: 15 past the 500 B read for line counts, 0 larger than 1.0 MiB or binary)")

	lim = analyzeLimits{timeout: time.Minute, maxFiles: 5, lineBudget: 1 << 20}
	r = analyzeProjectWith(context.Background(), f.Env, lim)
	require.True(t, r.Meta.Truncated)
	require.Contains(t, r.Output, "[stopped after 5 files: the numbers are lower bounds]")

	lim = analyzeLimits{timeout: time.Nanosecond, maxFiles: 1000, lineBudget: 1 << 20}
	r = analyzeProjectWith(context.Background(), f.Env, lim)
	require.True(t, r.OK, "the time limit cuts the scan, it does not fail it")
	require.Contains(t, r.Output, "[stopped after 1ns: the numbers are lower bounds]")

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	require.False(t, analyzeProjectWith(ctx, f.Env, defaultAnalyzeLimits).OK, "a cancelled call fails")
}

func TestAnalyzeProjectNeverReadsIgnoredDirectories(t *testing.T) {
	f := newFixture(t)
	f.Write(".gitignore", "node_modules/\n")
	f.Write("src/deep/a.go", "package a\n")
	f.Write("node_modules/dep/lib/index.js", "x\n")
	f.RequireNotRead("src/deep", "node_modules", func() {
		require.NotContains(t, f.OK("analyze_project", jobj{}).Output, "JavaScript")
	})
}
