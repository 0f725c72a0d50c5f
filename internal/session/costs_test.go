package session

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm"
)

// TestSpentSurvivesCompactionAndDeletion: the daily sum comes from the
// usage ledger, which a compaction (ReplaceMessages) and a deleted
// session leave alone; the session's figure includes its subagents'.
func TestSpentSurvivesCompactionAndDeletion(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	clock := time.Date(2026, 11, 27, 23, 0, 0, 0, time.Local)
	s.now = func() time.Time { return clock }
	priced := s.Priced(func(u llm.Usage) float64 { return float64(u.OutputTokens) / 1000 })
	a := newSession(t, s, "/w")
	reply := llm.AssistantText("yesterday")
	reply.Model = "p/old"
	require.NoError(t, priced.AppendMessage(ctx, a.ID, llm.UserText("hi"), nil))
	require.NoError(t, priced.AppendMessage(ctx, a.ID, reply, &llm.Usage{InputTokens: 5, OutputTokens: 1000})) // $1 yesterday

	clock = clock.Add(2 * time.Hour) // past midnight
	midnight := time.Date(2026, 11, 28, 0, 0, 0, 0, time.Local)
	reply.Model = "p/new"
	require.NoError(t, priced.AppendMessage(ctx, a.ID, reply, &llm.Usage{InputTokens: 10, OutputTokens: 250})) // $0.25
	require.NoError(t, s.AddModelUsage(ctx, a.ID, "p/small", llm.Usage{InputTokens: 7, OutputTokens: 3}, 0.05))
	child, err := s.CreateChild(ctx, Child{ParentID: a.ID, ToolCallID: "c1", Label: "explore"}, "/w", "p", "m")
	require.NoError(t, err)
	require.NoError(t, priced.AppendMessage(ctx, child.ID, reply, &llm.Usage{InputTokens: 1, OutputTokens: 100})) // $0.10
	b := newSession(t, s, "/w")
	require.NoError(t, priced.AppendMessage(ctx, b.ID, reply, &llm.Usage{OutputTokens: 500})) // $0.50

	sp, err := s.Spent(ctx, a.ID, midnight)
	require.NoError(t, err)
	require.InDelta(t, 1.40, sp.SessionUSD, 1e-9)
	require.Equal(t, 5+1000+10+250+7+3+1+100, sp.SessionTokens)
	require.InDelta(t, 0.90, sp.DailyUSD, 1e-9)

	// A compaction replaces the messages; a deletion removes session b.
	require.NoError(t, s.ReplaceMessages(ctx, a.ID, []llm.Message{llm.UserText("summary")}))
	require.NoError(t, s.Delete(ctx, b.ID))
	sp, err = s.Spent(ctx, a.ID, midnight)
	require.NoError(t, err)
	require.InDelta(t, 0.90, sp.DailyUSD, 1e-9)
	require.InDelta(t, 1.40, sp.SessionUSD, 1e-9)

	br, err := s.Breakdown(ctx, a.ID[:8], nil)
	require.NoError(t, err)
	require.Equal(t, a.ID, br.SessionID)
	require.Len(t, br.Requests, 3)
	require.Equal(t, UsageRecord{Seq: 2, Exchange: 1, Model: "p/new", Usage: llm.Usage{InputTokens: 10, OutputTokens: 250}, CostUSD: 0.25, At: clock},
		br.Requests[1])
	require.Equal(t, []string{"p/old", "p/new", "p/small"}, []string{br.Models[0].Model, br.Models[1].Model, br.Models[2].Model})
	require.Equal(t, 1, br.Models[0].Requests)
}

func TestToolCosts(t *testing.T) {
	result := func(name string, size int) llm.Message {
		content := make([]byte, size)
		return llm.Message{Role: llm.RoleTool, Parts: []llm.Part{{Type: llm.PartToolResult,
			ToolResult: &llm.ToolResult{CallID: name, Name: name, Content: string(content)}}}}
	}
	answer := func(model string) llm.Message {
		m := llm.AssistantText("x")
		m.Model = model
		return m
	}
	msgs := []llm.Message{llm.UserText("go"), answer("p/a"), result("read_file", 400), answer("p/a"),
		result("run_command", 40), result("read_file", 4), answer("p/b"), llm.UserText("more"), answer("p/b")}
	prices := map[string]float64{"p/a": 1, "p/b": 3}
	got := ToolCosts(msgs, func(m string) float64 { return prices[m] })
	require.Len(t, got, 2)
	// read_file: 100 tokens carried by 3 answers (a, b, b) + 1 token by 2 (b, b).
	require.Equal(t, ToolCost{Tool: "read_file", Calls: 2, ResultTokens: 101, CarriedTokens: 302, CostUSD: (100*(1+3+3) + 1*(3+3)) / 1e6}, got[0])
	require.Equal(t, "run_command", got[1].Tool)
	require.Equal(t, 20, got[1].CarriedTokens)
	require.Empty(t, ToolCosts(msgs[:2], nil))
}

// TestUsageLogBackfill: the migration fills the ledger from the messages
// an older aidex priced.
func TestUsageLogBackfill(t *testing.T) {
	s, _ := openTest(t)
	ctx := context.Background()
	sess := newSession(t, s, "/w")
	p, err := newMigrator(s.db)
	require.NoError(t, err)
	_, err = p.DownTo(ctx, 4)
	require.NoError(t, err)
	_, err = s.db.ExecContext(ctx, `INSERT INTO messages (session_id, seq, role, parts, usage, created_at, model, cost_usd)
		VALUES (?, 1, 'assistant', '[]', '{"input_tokens":12,"output_tokens":3,"cache_read_tokens":2}', 42, 'p/m', 0.5)`, sess.ID)
	require.NoError(t, err)
	_, err = p.Up(ctx)
	require.NoError(t, err)
	sp, err := s.Spent(ctx, sess.ID, time.Unix(0, 0))
	require.NoError(t, err)
	require.InDelta(t, 0.5, sp.DailyUSD, 1e-9)
	recs, err := usageLog(ctx, s.db, sess.ID)
	require.NoError(t, err)
	require.Equal(t, []UsageRecord{{Seq: 1, Model: "p/m", Usage: llm.Usage{InputTokens: 12, OutputTokens: 3, CacheReadTokens: 2}, CostUSD: 0.5, At: time.Unix(0, 42)}}, recs)
}

// BenchmarkSpent is what a run with a budget adds at its start: the
// session tree's sums and today's cost over a ledger of 20,000 responses
// in 200 sessions.
func BenchmarkSpent(b *testing.B) {
	s, _ := openTest(b)
	ctx := context.Background()
	var last string
	for i := 0; i < 200; i++ {
		sess := newSession(b, s, "/w")
		last = sess.ID
		require.NoError(b, s.write(ctx, func(tx *sql.Tx) error {
			for j := 0; j < 100; j++ {
				if err := logUsage(ctx, tx, sess.ID, "p/m", llm.Usage{InputTokens: 1000, OutputTokens: 100}, 0.01, int64(i*100+j)); err != nil {
					return err
				}
			}
			return nil
		}))
	}
	since := time.Unix(0, 10000)
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Spent(ctx, last, since); err != nil {
			b.Fatal(err)
		}
	}
}
