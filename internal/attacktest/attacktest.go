// Package attacktest loads the shared attack and bad-input cases
// (../shared/security/attacks.jsonl beside the repository; see its
// README.md) for the security tests of several packages.
package attacktest

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/sharedtest"
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

// Path returns the attack file beside the repository root, or "".
func Path() string { return sharedtest.Find("security/attacks.jsonl") }

// Load returns every case, in file order. When the shared folder is not
// beside the repository the test fails under CI and is skipped otherwise
// (sharedtest.Require); a line that does not parse fails it.
func Load(t testing.TB) []Case {
	t.Helper()
	p := sharedtest.Require(t, "security/attacks.jsonl", "attack cases")
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
