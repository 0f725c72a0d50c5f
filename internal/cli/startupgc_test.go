package cli

import (
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent reads the current GC percentage.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// Start-up runs with a raised GC percentage (no collection in a headless
// hello), and the previous one comes back after the window.
func TestStartupGCWindow(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	startupGC(func(string) string { return "" }, 50*time.Millisecond)
	if got := gcPercent(); got != startupGCPercent {
		t.Fatalf("during start-up the GC percentage is %d, want %d", got, startupGCPercent)
	}
	deadline := time.Now().Add(5 * time.Second)
	for gcPercent() != 100 {
		if time.Now().After(deadline) {
			t.Fatalf("after the window the GC percentage is %d, want 100 back", gcPercent())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// GOGC set by the user is left alone.
func TestStartupGCKeepsGOGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	startupGC(func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	}, time.Millisecond)
	if got := gcPercent(); got != 100 {
		t.Fatalf("with GOGC set the GC percentage is %d, want it untouched (100)", got)
	}
}
