package cli

import (
	"runtime/debug"
	"time"
)

// startupGCPercent is the GC percentage of the start-up window: a Go
// program's first collection comes at 4 MB of heap times GOGC/100, and
// aidex's start-up (package init, configuration, session store, tool
// schemas, the first request) allocates a little more than 4 MB, so at
// the default a headless hello paid one full collection, about 3 ms of
// CPU and a few hundred KB of RSS for the GC workers (issue 40). At 200
// the first collection comes at 8 MB.
const startupGCPercent = 200

// startupGCWindow is how long start-up keeps startupGCPercent: longer
// than a headless hello takes on a loaded machine, short enough that a
// long session runs at the usual percentage (its peak heap is the same).
const startupGCWindow = 500 * time.Millisecond

// startupGC raises the GC percentage to startupGCPercent for window, then
// puts the previous one back. With GOGC set (getenv), the user's choice
// stands and nothing changes.
func startupGC(getenv func(string) string, window time.Duration) {
	if getenv("GOGC") != "" {
		return
	}
	prev := debug.SetGCPercent(startupGCPercent)
	time.AfterFunc(window, func() { debug.SetGCPercent(prev) })
}
