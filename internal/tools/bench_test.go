package tools

import (
	"context"
	"encoding/json"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/permission"
)

const benchPattern = `func \w+Context\(`

func goSrc(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// BenchmarkGrep searches GOROOT/src with both backends and, for
// reference, runs `rg` and `grep -rn` themselves.
func BenchmarkGrep(b *testing.B) {
	root := goSrc(b)
	req := GrepRequest{Root: root, Pattern: benchPattern}
	b.Run("go-walker", func(b *testing.B) {
		for b.Loop() {
			r, err := GoGrep{}.Search(context.Background(), req)
			if err != nil || r.Matches == 0 {
				b.Fatalf("%v %d", err, r.Matches)
			}
		}
	})
	rg, rgErr := exec.LookPath("rg")
	b.Run("rg-backend", func(b *testing.B) {
		if rgErr != nil {
			b.Skip("rg not installed")
		}
		for b.Loop() {
			r, err := Ripgrep{Path: rg}.Search(context.Background(), req)
			if err != nil || r.Matches == 0 {
				b.Fatalf("%v %d", err, r.Matches)
			}
		}
	})
	b.Run("rg-exec", func(b *testing.B) {
		if rgErr != nil {
			b.Skip("rg not installed")
		}
		for b.Loop() {
			runDiscard(b, rg, "-n", "--no-config", "--hidden", "-g", "!.git", "-e", benchPattern, root)
		}
	})
	b.Run("grep-rn-exec", func(b *testing.B) {
		grep, err := exec.LookPath("grep")
		if err != nil {
			b.Skip("grep not installed")
		}
		for b.Loop() {
			runDiscard(b, grep, "-rnE", `func [[:alnum:]_]+Context\(`, root)
		}
	})
}

func runDiscard(b *testing.B, name string, args ...string) {
	cmd := exec.Command(name, args...)
	cmd.Stdout = io.Discard
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() > 1 {
			b.Fatalf("%s: %v", name, err)
		}
	}
}

// BenchmarkSearchFiles runs the search_files tool over GOROOT/src.
func BenchmarkSearchFiles(b *testing.B) {
	ws, err := permission.NewWorkspace(goSrc(b), permission.WorkspaceOptions{})
	if err != nil {
		b.Fatal(err)
	}
	reg := NewRegistry()
	if err := reg.Register(FileTools()...); err != nil {
		b.Fatal(err)
	}
	env := NewEnv(ws)
	args := json.RawMessage(`{"pattern":"**/*_test.go"}`)
	for b.Loop() {
		if r := reg.Call(context.Background(), env, "search_files", args); !r.OK || r.Meta.Matches == 0 {
			b.Fatal(r.Error)
		}
	}
}

// BenchmarkPrepare measures argument normalisation and validation, and
// reports the size of the standard profile's schemas.
func BenchmarkPrepare(b *testing.B) {
	reg := NewRegistry()
	if err := reg.Register(FileTools()...); err != nil {
		b.Fatal(err)
	}
	schemas, _ := reg.Schemas(Profile{})
	all, _ := json.Marshal(schemas)
	args := json.RawMessage(`{"file_path":"a/b.go","old_str":"x := 1","new_str":"x := 2","replaceAll":"false"}`)
	for b.Loop() {
		if _, err := reg.Prepare("Edit", args); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(all)), "std-schema-bytes")
}

// BenchmarkRegistryStartup measures building a registry and its schemas
// (what aidex does at start-up).
func BenchmarkRegistryStartup(b *testing.B) {
	for b.Loop() {
		reg := NewRegistry()
		if err := reg.Register(FileTools()...); err != nil {
			b.Fatal(err)
		}
	}
}
