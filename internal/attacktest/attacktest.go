// Package attacktest loads the shared attack and bad-input cases
// (../shared/security/attacks.jsonl beside the repository; see its
// README.md) for the security tests of several packages.
package attacktest

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Case is one line of attacks.jsonl: Surface is `tool:NAME`, `shell`,
// `web:METHOD PATH`, `config`, `cli` or `provider`; Input holds the
// arguments and, in "setup", how to prepare the case.
type Case struct {
	ID       string         `json:"id"`
	Category string         `json:"category"`
	Surface  string         `json:"surface"`
	Input    map[string]any `json:"input"`
	Expected string         `json:"expected"`
}

// Path returns the attack file beside the repository root (the directory
// holding go.mod, found upwards from the working directory), or "".
func Path() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "..", "shared", "security", "attacks.jsonl")
			if _, err := os.Stat(p); err == nil {
				return p
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Load returns every case, in file order. The test is skipped, with a
// message, when the shared folder is not beside the repository; a line
// that does not parse fails it.
func Load(t testing.TB) []Case {
	t.Helper()
	p := Path()
	if p == "" {
		t.Skip("../shared/security/attacks.jsonl not found beside the repository: attack cases unavailable")
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []Case
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var c Case
		if err := json.Unmarshal(sc.Bytes(), &c); err != nil {
			t.Fatalf("%s: bad line %q: %v", p, sc.Text(), err)
		}
		out = append(out, c)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
