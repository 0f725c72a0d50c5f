//go:build linux

package helper

import (
	"os/signal"
	"syscall"
	"testing"
	"time"
)

// TestCaughtSignalEndsBeforeTheCommand: once the helper catches the
// catchable signals, a SIGTERM sent to it (as aidex's cancel sends the
// process group) no longer ends it with the Go runtime's status 2; the
// helper sees it and ends as the command would have (128+15) instead of
// starting the command. Nothing caught: 0.
func TestCaughtSignalEndsBeforeTheCommand(t *testing.T) {
	sigs := catchSignals()
	defer signal.Reset(catchable()...)
	if got := caught(sigs); got != 0 {
		t.Fatalf("caught before any signal = %d, want 0", got)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	got := 0
	for deadline := time.Now().Add(10 * time.Second); got == 0 && time.Now().Before(deadline); { // a bound, not a timing assertion
		got = caught(sigs)
		time.Sleep(time.Millisecond)
	}
	if got != 128+int(syscall.SIGTERM) {
		t.Fatalf("caught = %d, want %d", got, 128+int(syscall.SIGTERM))
	}
	if got := caught(sigs); got != 0 {
		t.Fatalf("a second look = %d, want 0 (one signal, seen once)", got)
	}
}
