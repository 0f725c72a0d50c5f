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

// Every package linked into aidex initialises on every start, `aidex
// --version` included (issue 21), so tables that need compiling or large
// regular expressions belong behind sync.OnceValue, in aidex and in the
// libraries it links (third_party/*/PATCHES.md). The limits, in bytes
// allocated during package initialisation:
const (
	// maxInitBytes bounds one aidex package.
	maxInitBytes = 32 << 10
	// maxLibInitBytes bounds one package of a library (glamour's autolink,
	// ~145 KB, moved to aidex-chat with the interactive chat; nats-server's ~185 KB moved to the
	// aidex-nats helper; chroma's lexers were 1.7 MB, 0.43 MB with
	// upstream's metadata registry, 20 KB with the registry filled on first
	// lookup; excelize 1.3 MB (replaced by aidex's own XLSX reader),
	// bluemonday's CSS tables 0.5 MB before their patches).
	maxLibInitBytes = 256 << 10
	// maxTotalInitBytes bounds all packages together (0.90 MB in this
	// test binary once chroma's registry was filled on first lookup, issue
	// 40; 1.31 MB before, 1.53 MB before nats-server moved to aidex-nats;
	// 6 MB before issue 21's patches).
	maxTotalInitBytes = 1024 << 10
)

// chatLibraries are the module paths of the terminal UI's and the line
// mode's libraries, linked into aidex-chat only (issue 40).
var chatLibraries = []string{"charm.land/bubbletea/", "charm.land/bubbles/", "charm.land/glamour/",
	"charm.land/lipgloss/", "github.com/alecthomas/chroma/", "github.com/yuin/goldmark",
	"github.com/microcosm-cc/bluemonday", "github.com/atotto/clipboard"}

// libInitAllowance raises maxLibInitBytes for a library package whose
// init cost is upstream's own design, kept so that its fork can be dropped
// (none today).
var libInitAllowance = map[string]int{}

// TestPackageInitIsCheap re-runs this test binary, which links everything
// aidex links, with GODEBUG=inittrace=1 and no tests, and checks the bytes
// each package, and all together, allocate while they initialise (a
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
	seen, total := 0, 0
	sc := bufio.NewScanner(strings.NewReader(trace))
	for sc.Scan() {
		pkg, bytesAlloc, ok := parseInitTrace(sc.Text())
		if !ok {
			continue
		}
		total += bytesAlloc
		if strings.HasPrefix(pkg, "github.com/nats-io/nats-server/") {
			t.Errorf("aidex links %s: the embedded NATS server belongs in the aidex-nats helper (internal/ralph/dist/natsd), not in every start", pkg)
		}
		for _, lib := range chatLibraries {
			if strings.HasPrefix(pkg, lib) {
				t.Errorf("aidex links %s: the interactive chat's libraries belong in aidex-chat (internal/ui/chat), not in every start", pkg)
			}
		}
		if !strings.HasPrefix(pkg, "github.com/zelvior/aidex/") {
			limit := maxLibInitBytes
			if l, ok := libInitAllowance[pkg]; ok {
				limit = l
			}
			if bytesAlloc > limit {
				t.Errorf("library package %s allocates %d bytes at init (limit %d): make it lazy in a patched copy under third_party/ (see third_party/chroma/PATCHES.md) or use a lighter library",
					pkg, bytesAlloc, limit)
			}
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
	if total > maxTotalInitBytes {
		t.Errorf("all packages together allocate %d bytes at init (limit %d): find the largest with GODEBUG=inittrace=1",
			total, maxTotalInitBytes)
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
