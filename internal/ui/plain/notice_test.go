package plain

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
)

func TestPrinterShowsNotices(t *testing.T) {
	var out strings.Builder
	p := &Printer{Out: &out}
	p.Event(agent.Event{Type: agent.EventText, Text: "partial"})
	p.Event(agent.Event{Type: agent.EventNotice, Text: "a/big failed (rate limited): continuing on b/small",
		Notice: &agent.NoticeInfo{Kind: agent.NoticeFallback, From: "a/big", To: "b/small"}})
	p.Event(agent.Event{Type: agent.EventNotice, Text: "── editor · b/small makes the edits ──", Phase: "editor",
		Notice: &agent.NoticeInfo{Kind: agent.NoticePhase, Phase: "editor", To: "b/small"}})
	require.Equal(t, "partial\na/big failed (rate limited): continuing on b/small\n── editor · b/small makes the edits ──\n", out.String())
}
