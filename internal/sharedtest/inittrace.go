package sharedtest

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// InitBudget bounds what a program's packages allocate while they
// initialise (bytes; a deterministic stand-in for init time, issues 21
// and 40), and names the libraries that must not be linked at all.
type InitBudget struct {
	Program string // for messages: "aidex", "aidex-chat"
	Own     int    // one package of aidex (github.com/zelvior/aidex/...)
	Lib     int    // one package of a library
	Total   int    // all packages together
	// Forbidden maps a package path prefix to why it must not be linked.
	Forbidden map[string]string
}

// CheckInitCost re-runs the running test binary, which links what its
// program links, with GODEBUG=inittrace=1 and no tests, and reports each
// package over its budget, every forbidden package linked, and a total
// over budget.
func CheckInitCost(t *testing.T, b InitBudget) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s -test.run=^$: %v\n%s", os.Args[0], err, stderr.String())
	}
	trace := stderr.String()
	seen, total := 0, 0
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		pkg, allocated, ok := ParseInitTrace(sc.Text())
		if !ok {
			continue
		}
		total += allocated
		for prefix, why := range b.Forbidden {
			if strings.HasPrefix(pkg, prefix) {
				t.Errorf("%s links %s: %s", b.Program, pkg, why)
			}
		}
		switch {
		case !strings.HasPrefix(pkg, "github.com/zelvior/aidex/"):
			if allocated > b.Lib {
				t.Errorf("library package %s allocates %d bytes at init (limit %d): make it lazy in a patched copy under third_party/ (see third_party/chroma/PATCHES.md) or use a lighter library",
					pkg, allocated, b.Lib)
			}
		case allocated > b.Own:
			seen++
			t.Errorf("package %s allocates %d bytes at init (limit %d): build its tables and regexps on first use (sync.OnceValue)",
				pkg, allocated, b.Own)
		default:
			seen++
		}
	}
	if seen == 0 {
		t.Fatalf("no init trace line of an aidex package in:\n%s", trace)
	}
	if total > b.Total {
		t.Errorf("all packages of %s together allocate %d bytes at init (limit %d): find the largest with GODEBUG=inittrace=1",
			b.Program, total, b.Total)
	}
}

// ParseInitTrace reads one GODEBUG=inittrace=1 line, "init PKG @T ms, C ms
// clock, B bytes, A allocs", and returns PKG and B.
func ParseInitTrace(line string) (pkg string, allocated int, ok bool) {
	f := strings.Fields(line)
	if len(f) < 11 || f[0] != "init" || f[8] != "bytes," {
		return "", 0, false
	}
	n, err := strconv.Atoi(f[7])
	if err != nil {
		return "", 0, false
	}
	return f[1], n, true
}
