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

// grepBenchCases are the searches BenchmarkGrep runs over GOROOT/src: a
// pattern with a required literal, one with alternative literals, a
// case-insensitive one (all three prefiltered by literals) and one without
// literals (every file goes through the regexp).
var grepBenchCases = []struct {
	name       string
	pattern    string
	ignoreCase bool
	prefilter  bool     // GoGrep finds literals to prefilter with
	grepArgs   []string // the same search for grep -rn
}{
	{"literal", `func \w+Context\(`, false, true, []string{"-rnE", `func [[:alnum:]_]+Context\(`}},
	{"alternation", `\w+(Context|Ctx)[(\[]`, false, true, []string{"-rnE", `[[:alnum:]_]+(Context|Ctx)[([]`}},
	{"ignore-case", `func \w+context\(`, true, true, []string{"-rniE", `func [[:alnum:]_]+context\(`}},
	{"no-literal", `\b[A-Z][a-z]+[0-9]{2,}\b`, false, false, []string{"-rnE", `\b[A-Z][a-z]+[0-9]{2,}\b`}},
}

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
	rg, rgErr := exec.LookPath("rg")
	grep, grepErr := exec.LookPath("grep")
	for _, c := range grepBenchCases {
		req := GrepRequest{Root: root, Pattern: c.pattern, IgnoreCase: c.ignoreCase}
		if (newLitFinder(c.pattern, c.ignoreCase) != nil) != c.prefilter {
			b.Fatalf("%s: prefilter should be %v", c.pattern, c.prefilter)
		}
		b.Run(c.name+"/go-walker", func(b *testing.B) {
			for b.Loop() {
				r, err := GoGrep{}.Search(context.Background(), req)
				if err != nil || r.Matches == 0 {
					b.Fatalf("%v %d", err, r.Matches)
				}
			}
		})
		b.Run(c.name+"/rg-backend", func(b *testing.B) {
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
		b.Run(c.name+"/rg-exec", func(b *testing.B) {
			if rgErr != nil {
				b.Skip("rg not installed")
			}
			args := []string{"-n", "--no-config", "--hidden", "-g", "!.git"}
			if c.ignoreCase {
				args = append(args, "-i")
			}
			for b.Loop() {
				runDiscard(b, rg, append(args, "-e", c.pattern, root)...)
			}
		})
		b.Run(c.name+"/grep-rn-exec", func(b *testing.B) {
			if grepErr != nil {
				b.Skip("grep not installed")
			}
			for b.Loop() {
				runDiscard(b, grep, append(c.grepArgs, root)...)
			}
		})
	}
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
