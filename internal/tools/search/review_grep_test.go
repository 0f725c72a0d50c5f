package search

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/zelvior/aidex/internal/tools"
)

// TestGoGrepManyMatchesInOneFileIsBounded: one file under MaxReadBytes
// with millions of matching lines must not make GoGrep collect (and
// allocate for) every one of them: the search stops near Limit.
func TestGoGrepManyMatchesInOneFileIsBounded(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("a\n"), 8<<20) // 16 MiB, 8M matching lines
	if err := os.WriteFile(filepath.Join(dir, "big.txt"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pat := range []string{"a", "a*"} {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		res, err := GoGrep{}.Search(context.Background(), tools.GrepRequest{Root: dir, Pattern: pat, Limit: grepCollectLimit})
		runtime.ReadMemStats(&after)
		if err != nil {
			t.Fatal(err)
		}
		if res.Matches < grepCollectLimit || res.Matches > 2*grepCollectLimit {
			t.Errorf("%s: %d matches collected, want about %d", pat, res.Matches, grepCollectLimit)
		}
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 128<<20 {
			t.Errorf("%s: searching allocated %d MiB for a %d MiB file", pat, alloc>>20, len(data)>>20)
		}
	}
}
