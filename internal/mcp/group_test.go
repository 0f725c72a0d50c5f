package mcp_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/tools/proc"
)

// TestStdioServerEndsWithItsChildren: closing the manager ends every
// process a stdio server started (npx's node, a server's workers) — a
// process group on Unix, a Job Object on Windows, where the server runs
// only once it is in its job.
func TestStdioServerEndsWithItsChildren(t *testing.T) {
	pidFile := filepath.Join(t.TempDir(), "pid")
	m := start(t, fake(t, "parent", "parent", map[string]string{"AIDEX_MCP_FAKE_PIDFILE": pidFile}))
	if f := m.Failures(); len(f) > 0 {
		t.Fatalf("the server did not start: %v", f)
	}
	data, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatalf("the server wrote no child pid: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil || !proc.Alive(pid) {
		t.Fatalf("child %q not running before the close (%v)", data, err)
	}
	if err := m.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}
	for deadline := time.Now().Add(10 * time.Second); proc.Alive(pid); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server's child %d still runs after the manager closed", pid)
		}
	}
}
