package tui_test

import (
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// TestE2EStatusWhileModelReads: while the model has not sent its first
// byte, the status line says it waits and how much it reads; the answer
// replaces that.
func TestE2EStatusWhileModelReads(t *testing.T) {
	release := make(chan struct{})
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Read it all.", Hold: release})
	e := start(t, script, "")
	e.waitFor("fake/scripted-a", "ask")
	e.typeLine("summarise the repository")
	e.waitFor("waiting for fake/scripted-a — reading ~", " tokens, ")
	close(release)
	e.waitFor("Read it all.")
	e.poll("the waiting status to go", func() bool { return !strings.Contains(e.screen(), "waiting for fake/scripted-a") })
	e.typeLine("/exit")
	e.waitFor("EXIT=0")
}
