package search

import (
	"context"
	"io"
	"os/exec"
	"testing"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/toolstest"
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

// BenchmarkGrep searches GOROOT/src with both backends and, for
// reference, runs `rg` and `grep -rn` themselves.
func BenchmarkGrep(b *testing.B) {
	root := toolstest.GoSrc(b)
	rg, rgErr := exec.LookPath("rg")
	grep, grepErr := exec.LookPath("grep")
	for _, c := range grepBenchCases {
		req := tools.GrepRequest{Root: root, Pattern: c.pattern, IgnoreCase: c.ignoreCase}
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
