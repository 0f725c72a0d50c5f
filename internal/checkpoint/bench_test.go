package checkpoint

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// benchTree makes a workspace of 10,000 files (100 folders of 100) and
// takes its first snapshot, so the shadow index is warm.
func benchTree(b *testing.B) (*Repo, string) {
	b.Helper()
	r, ws := open(b, 0)
	for d := range 100 {
		dir := filepath.Join(ws, fmt.Sprintf("pkg%03d", d))
		require.NoError(b, os.MkdirAll(dir, 0o755))
		for f := range 100 {
			content := fmt.Sprintf("package pkg%03d\n\n// file %d\nvar X%d = %d\n", d, f, f, d*f)
			require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(content), 0o644))
		}
	}
	// git trusts a file's stat data only when the file is older than the
	// index (else it is "racily clean" and hashed at every look): as in a
	// real workspace, whose files are older than its first snapshot.
	time.Sleep(1100 * time.Millisecond)
	_, err := r.Snapshot(context.Background(), "first")
	require.NoError(b, err)
	return r, ws
}

// A checkpoint of an unchanged tree of 10,000 files (target: 50 ms).
func BenchmarkSnapshotUnchanged10k(b *testing.B) {
	r, _ := benchTree(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.Snapshot(ctx, "unchanged"); err != nil {
			b.Fatal(err)
		}
	}
}

// A checkpoint of the same tree with 10 files changed since the last
// one (target: 100 ms); the changes are made outside the timer.
func BenchmarkSnapshot10Changed10k(b *testing.B) {
	r, ws := benchTree(b)
	ctx := context.Background()
	n := 0
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		for i := range 10 {
			p := filepath.Join(ws, fmt.Sprintf("pkg%03d", (n*10+i)%100), fmt.Sprintf("f%03d.go", i))
			if err := os.WriteFile(p, []byte(fmt.Sprintf("package changed\n// %d\n", n)), 0o644); err != nil {
				b.Fatal(err)
			}
		}
		n++
		b.StartTimer()
		if _, err := r.Snapshot(ctx, "changed"); err != nil {
			b.Fatal(err)
		}
	}
}
