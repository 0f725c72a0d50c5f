package main

import (
	"testing"

	"github.com/zelvior/aidex/internal/sharedtest"
)

// TestPackageInitIsCheap checks what aidex-chat's packages allocate at
// init: every interactive start pays it (the terminal UI's libraries are
// here, behind the patched copies of third_party/), with aidex's budgets
// (cmd/aidex/startup_test.go), and that the embedded NATS server is not
// linked.
func TestPackageInitIsCheap(t *testing.T) {
	sharedtest.CheckInitCost(t, sharedtest.InitBudget{Program: "aidex-chat", Own: 32 << 10, Lib: 256 << 10, Total: 1024 << 10,
		Forbidden: map[string]string{"github.com/nats-io/nats-server/": "the embedded NATS server belongs in the aidex-nats helper (internal/ralph/dist/natsd)"}})
}
