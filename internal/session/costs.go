package session

import (
	"context"
	"database/sql"
	"fmt"
	"sort"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// logUsage adds one model response's usage to the ledger (usage_log), in
// the transaction that records it in the session's totals.
func logUsage(ctx context.Context, tx *sql.Tx, id, model string, u llm.Usage, costUSD float64, now int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO usage_log (session_id, model, turn, input_tokens, output_tokens,
		cache_read_tokens, cache_write_tokens, reasoning_tokens, cost_usd, created_at)
		VALUES (?, ?, (SELECT turn FROM sessions WHERE id = ?), ?, ?, ?, ?, ?, ?, ?)`,
		id, model, id, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens, u.ReasoningTokens, costUSD, now)
	if err != nil {
		return fmt.Errorf("record usage of session %s: %w", id, err)
	}
	return nil
}

// Spent returns what the budgets count before a run: the cost in US
// dollars and the tokens (input + output) of session sessionID (a full
// id) and of its subagents' sessions, and the cost of every session's
// model responses since since (local midnight for the daily budget),
// from the usage ledger, which compactions and deletions leave alone.
// Errors: a failed query.
func (s *Store) Spent(ctx context.Context, sessionID string, since time.Time) (agent.Spending, error) {
	var sp agent.Spending
	err := s.read(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(cost_usd), 0), COALESCE(SUM(input_tokens + output_tokens), 0)
			FROM sessions WHERE id = ? OR id IN (WITH RECURSIVE d(id) AS (
				SELECT id FROM sessions WHERE parent_session_id = ?
				UNION ALL SELECT c.id FROM sessions c JOIN d ON c.parent_session_id = d.id) SELECT id FROM d)`,
			sessionID, sessionID).Scan(&sp.SessionUSD, &sp.SessionTokens)
		if err != nil {
			return err
		}
		return tx.QueryRowContext(ctx, `SELECT COALESCE(SUM(cost_usd), 0) FROM usage_log WHERE created_at >= ?`,
			since.UnixNano()).Scan(&sp.DailyUSD)
	})
	if err != nil {
		return agent.Spending{}, fmt.Errorf("read the spending of session %s: %w", sessionID, err)
	}
	return sp, nil
}

// UsageRecord is one model response of a session, from the usage ledger:
// its number in the session (Seq, from 1), the user prompt it answered
// (Exchange, from 1; 0 before the first), the "PROVIDER/MODEL" that
// answered ("" when unknown), its tokens, cost in US dollars, and time.
type UsageRecord struct {
	Seq      int       `json:"seq"`
	Exchange int       `json:"exchange"`
	Model    string    `json:"model,omitempty"`
	Usage    llm.Usage `json:"usage"`
	CostUSD  float64   `json:"cost_usd"`
	At       time.Time `json:"at"`
}

func usageLog(ctx context.Context, q querier, id string) ([]UsageRecord, error) {
	rows, err := q.QueryContext(ctx, `SELECT model, turn, input_tokens, output_tokens, cache_read_tokens,
		cache_write_tokens, reasoning_tokens, cost_usd, created_at FROM usage_log WHERE session_id = ? ORDER BY id`, id)
	if err != nil {
		return nil, fmt.Errorf("read the usage of session %s: %w", id, err)
	}
	defer rows.Close()
	var out []UsageRecord
	for rows.Next() {
		r := UsageRecord{Seq: len(out) + 1}
		u := &r.Usage
		var at int64
		if err := rows.Scan(&r.Model, &r.Exchange, &u.InputTokens, &u.OutputTokens, &u.CacheReadTokens,
			&u.CacheWriteTokens, &u.ReasoningTokens, &r.CostUSD, &at); err != nil {
			return nil, fmt.Errorf("read the usage of session %s: %w", id, err)
		}
		r.At = time.Unix(0, at)
		out = append(out, r)
	}
	return out, rows.Err()
}

// ModelCost is one model's share of a session: its responses (Requests),
// their tokens and cost in US dollars.
type ModelCost struct {
	Model    string    `json:"model"`
	Requests int       `json:"requests"`
	Usage    llm.Usage `json:"usage"`
	CostUSD  float64   `json:"cost_usd"`
}

// ToolCost is what one tool's results cost the model requests after
// them: Calls results, ResultTokens their estimated size (4 bytes a
// token), CarriedTokens the sum over each result of its size times the
// number of later requests that carried it (the assistant messages after
// it), and CostUSD those tokens at each later request's model's input
// price (cache discounts not counted: an upper bound).
type ToolCost struct {
	Tool          string  `json:"tool"`
	Calls         int     `json:"calls"`
	ResultTokens  int     `json:"result_tokens"`
	CarriedTokens int     `json:"carried_tokens"`
	CostUSD       float64 `json:"cost_usd"`
}

// Breakdown is a session's usage and cost per model, per model response
// (Requests, in order) and per tool; Usage and CostUSD are the session's
// totals (its subagents' sessions not included: see [Store.Descendants]).
type Breakdown struct {
	SessionID string        `json:"session_id"`
	Usage     llm.Usage     `json:"usage"`
	CostUSD   float64       `json:"cost_usd"`
	Models    []ModelCost   `json:"models"`
	Requests  []UsageRecord `json:"requests"`
	Tools     []ToolCost    `json:"tools"`
}

// Breakdown returns the usage and cost of session id (a full id or a
// unique prefix) per model, per response and per tool. inputPrice gives
// a "PROVIDER/MODEL"'s input price in USD per million tokens ("" for a
// response whose model is unknown: the session's own). Errors wrap
// [ErrNotFound] or [ErrAmbiguous], or a failed query.
func (s *Store) Breakdown(ctx context.Context, id string, inputPrice func(model string) float64) (*Breakdown, error) {
	var b *Breakdown
	err := s.read(ctx, func(tx *sql.Tx) error {
		full, err := resolveID(ctx, tx, id)
		if err != nil {
			return err
		}
		sess, err := loadSession(ctx, tx, full)
		if err != nil {
			return err
		}
		reqs, err := usageLog(ctx, tx, full)
		if err != nil {
			return err
		}
		b = &Breakdown{SessionID: full, Usage: sess.Usage, CostUSD: sess.CostUSD, Requests: reqs,
			Models: modelCosts(reqs), Tools: ToolCosts(sess.Messages, inputPrice)}
		return nil
	})
	return b, err
}

// modelCosts sums reqs per model, the costliest first.
func modelCosts(reqs []UsageRecord) []ModelCost {
	idx := map[string]int{}
	var out []ModelCost
	for _, r := range reqs {
		i, ok := idx[r.Model]
		if !ok {
			i = len(out)
			idx[r.Model] = i
			out = append(out, ModelCost{Model: r.Model})
		}
		out[i].Requests++
		out[i].Usage = out[i].Usage.Add(r.Usage)
		out[i].CostUSD += r.CostUSD
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].CostUSD > out[j].CostUSD })
	return out
}

// ToolCosts attributes to each tool what its results cost the requests
// after them (see [ToolCost]): each tool result's size in tokens (4 bytes
// a token) times the number of assistant messages that follow it (each
// was the answer to a request that carried the result), priced at the
// input price of that answer's model (inputPrice, USD per million
// tokens; nil prices nothing). Results a compaction removed are no longer
// counted. The tool with the most carried tokens comes first, then by name.
func ToolCosts(msgs []llm.Message, inputPrice func(model string) float64) []ToolCost {
	// later[i] is the assistant messages after msgs[i]; priced[i] the sum
	// of their input prices.
	later, priced := make([]int, len(msgs)), make([]float64, len(msgs))
	n, p := 0, 0.0
	for i := len(msgs) - 1; i >= 0; i-- {
		later[i], priced[i] = n, p
		if msgs[i].Role == llm.RoleAssistant {
			n++
			if inputPrice != nil {
				p += inputPrice(msgs[i].Model)
			}
		}
	}
	idx := map[string]int{}
	var out []ToolCost
	for i, m := range msgs {
		for _, part := range m.Parts {
			tr := part.ToolResult
			if tr == nil {
				continue
			}
			k, ok := idx[tr.Name]
			if !ok {
				k = len(out)
				idx[tr.Name] = k
				out = append(out, ToolCost{Tool: tr.Name})
			}
			tokens := len(tr.Content) / 4
			out[k].Calls++
			out[k].ResultTokens += tokens
			out[k].CarriedTokens += tokens * later[i]
			out[k].CostUSD += float64(tokens) * priced[i] / 1e6
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].CarriedTokens != out[j].CarriedTokens {
			return out[i].CarriedTokens > out[j].CarriedTokens
		}
		return out[i].Tool < out[j].Tool
	})
	return out
}
