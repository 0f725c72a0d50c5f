package tui

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
)

func TestStreamCommitsNoticeAfterText(t *testing.T) {
	s := newStream(newStyles(false), false, true, 80)
	s.event(agent.Event{Type: agent.EventText, Text: "The plan: change a.go\n"})
	s.event(agent.Event{Type: agent.EventNotice, Text: "── editor · p/m makes the edits ──",
		Notice: &agent.NoticeInfo{Kind: agent.NoticePhase, Phase: "editor", To: "p/m"}})
	all := strings.Join(s.transcript, "\n")
	plan, notice := strings.Index(all, "The plan"), strings.Index(all, "── editor · p/m makes the edits ──")
	require.True(t, plan >= 0 && notice > plan, "the answer so far, then the notice: %q", all)
}
