package tui

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
)

// TestStatusShowsWaiting: from the waiting event until the answer's first
// event the status line says what the model is reading and for how long.
func TestStatusShowsWaiting(t *testing.T) {
	now := time.Unix(1000, 0)
	s := statusModel{st: newStyles(false), width: 200, now: func() time.Time { return now }}
	info := statusInfo{Provider: "ollama", Model: "qwen3:8b", Mode: "ask", Working: true, Spin: "*", Elapsed: 50 * time.Second}
	s, _ = s.Update(agent.Event{Type: agent.EventWaiting, Waiting: &agent.WaitingInfo{Provider: "ollama", Model: "qwen3:8b", InputTokens: 2100}})
	now = now.Add(45 * time.Second)
	require.Equal(t, "* waiting for ollama/qwen3:8b — reading ~2,100 tokens, 45 s · Esc stops · ollama/qwen3:8b · ask", s.View(info))
	idle := info
	idle.Working = false
	require.Equal(t, "ollama/qwen3:8b · ask", s.View(idle), "nothing of a wait when no run is going")
	s, _ = s.Update(agent.Event{Type: agent.EventText, Text: "Hi"})
	require.Equal(t, "* 50.0s · Esc stops · ollama/qwen3:8b · ask", s.View(info), "the first text ends the wait")
	s, _ = s.Update(agent.Event{Type: agent.EventWaiting, Waiting: &agent.WaitingInfo{Provider: "ollama", Model: "qwen3:8b", InputTokens: 2500}})
	require.Contains(t, s.View(info), "reading ~2,500 tokens, 0 s", "the next request waits anew")
	require.NotContains(t, s.reset().View(info), "waiting", "/clear forgets a wait")
}
