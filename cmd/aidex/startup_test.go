package main

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// maxInitBytes bounds what one aidex package may allocate during package
// initialisation. Every package linked into aidex initialises on every
// start, `aidex --version` included (issue 21), so tables that need
// compiling or large regular expressions belong behind sync.OnceValue.
const maxInitBytes = 128 << 10

// TestPackageInitIsCheap re-runs this test binary, which links everything
// aidex links, with GODEBUG=inittrace=1 and no tests, and checks the bytes
// each of aidex's own packages allocates while it initialises (a
// deterministic stand-in for init time).
func TestPackageInitIsCheap(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s -test.run=^$: %v\n%s", os.Args[0], err, stderr.String())
	}
	trace := stderr.String()
	seen := 0
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		pkg, bytesAlloc, ok := parseInitTrace(sc.Text())
		if !ok || !strings.HasPrefix(pkg, "github.com/zelvior/aidex/") {
			continue
		}
		seen++
		if bytesAlloc > maxInitBytes {
			t.Errorf("package %s allocates %d bytes at init (limit %d): build its tables and regexps on first use (sync.OnceValue)",
				pkg, bytesAlloc, maxInitBytes)
		}
	}
	if seen == 0 {
		t.Fatalf("no init trace line of an aidex package in:\n%s", trace)
	}
}

// parseInitTrace reads one GODEBUG=inittrace=1 line, "init PKG @T ms, C ms
// clock, B bytes, A allocs", and returns PKG and B.
func parseInitTrace(line string) (pkg string, allocated int, ok bool) {
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
