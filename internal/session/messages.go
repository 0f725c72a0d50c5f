package session

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
)

// titleMax is the length of a session title in runes.
const titleMax = 80

// Store implements agent.Store (without cost; see Priced).
var _ agent.Store = (*Store)(nil)

// AppendMessage implements [agent.Store]: it saves m as the session's next
// message, in its own transaction, and adds usage (tokens; nil for user and
// tool messages) to the session's totals. A user message also starts a new
// turn (the turn number file checkpoints are filed under) and, while the
// session has no title, gives it one: its text, whitespace collapsed, cut
// to 80 runes. No cost is added: use [Store.Priced] for that. Errors wrap
// [ErrNotFound] for an unknown session id (a full id).
func (s *Store) AppendMessage(ctx context.Context, sessionID string, m llm.Message, usage *llm.Usage) error {
	return s.appendMessage(ctx, sessionID, m, usage, 0)
}

func (s *Store) appendMessage(ctx context.Context, id string, m llm.Message, usage *llm.Usage, costUSD float64) error {
	if m.Role == "" {
		return fmt.Errorf("append message to session %s: the message has no role", id)
	}
	parts, err := marshalParts(m.Parts)
	if err != nil {
		return fmt.Errorf("append message to session %s: %w", id, err)
	}
	var usageJSON sql.NullString
	if usage != nil {
		b, err := json.Marshal(usage)
		if err != nil {
			return fmt.Errorf("append message to session %s: encode usage: %w", id, err)
		}
		usageJSON = sql.NullString{String: string(b), Valid: true}
	}
	return s.revived(ctx, id, func() error {
		return s.writeMessage(ctx, id, m, parts, usage, usageJSON, costUSD)
	})
}

// writeMessage is appendMessage's transaction, with m's parts and usage
// encoded.
func (s *Store) writeMessage(ctx context.Context, id string, m llm.Message, parts string, usage *llm.Usage, usageJSON sql.NullString, costUSD float64) error {
	var u llm.Usage
	if usage != nil {
		u = *usage
	}
	newTurn, title := 0, ""
	if m.Role == llm.RoleUser {
		newTurn, title = 1, makeTitle(m.Text())
	}
	now := s.now().UnixNano()
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ?, turn = turn + ?,
			title = CASE WHEN title = '' THEN ? ELSE title END,
			input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
			cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
			reasoning_tokens = reasoning_tokens + ?, cost_usd = cost_usd + ?
			WHERE id = ?`, now, newTurn, title, u.InputTokens, u.OutputTokens, u.CacheReadTokens,
			u.CacheWriteTokens, u.ReasoningTokens, costUSD, id)
		if err := checkUpdated(res, err, id, "append message"); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO messages (session_id, seq, role, parts, usage, created_at, model, cost_usd)
			VALUES (?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE session_id = ?), ?, ?, ?, ?, ?, ?)`,
			id, id, string(m.Role), parts, usageJSON, now, m.Model, costUSD)
		if err != nil {
			return fmt.Errorf("append message to session %s: %w", id, err)
		}
		if usage != nil {
			return logUsage(ctx, tx, id, m.Model, u, costUSD, now)
		}
		return nil
	})
}

// marshalParts encodes parts as a JSON array (never null).
func marshalParts(parts []llm.Part) (string, error) {
	if parts == nil {
		parts = []llm.Part{}
	}
	b, err := json.Marshal(parts)
	if err != nil {
		return "", fmt.Errorf("encode message parts: %w", err)
	}
	return string(b), nil
}

// makeTitle returns text with whitespace collapsed, cut to titleMax runes
// (the last one an ellipsis when cut).
func makeTitle(text string) string {
	t := strings.Join(strings.Fields(text), " ")
	if utf8.RuneCountInString(t) <= titleMax {
		return t
	}
	r := []rune(t)
	return strings.TrimRight(string(r[:titleMax-1]), " ") + "…"
}

// ReplaceMessages implements [agent.Store]: after a compaction it replaces
// all of the session's messages with msgs, in one transaction. The
// session's usage totals, cost, turn counter and title are kept. Errors
// wrap [ErrNotFound] for an unknown session id.
func (s *Store) ReplaceMessages(ctx context.Context, sessionID string, msgs []llm.Message) error {
	encoded := make([]string, len(msgs))
	for i, m := range msgs {
		if m.Role == "" {
			return fmt.Errorf("replace messages of session %s: message %d has no role", sessionID, i+1)
		}
		p, err := marshalParts(m.Parts)
		if err != nil {
			return fmt.Errorf("replace messages of session %s: message %d: %w", sessionID, i+1, err)
		}
		encoded[i] = p
	}
	return s.revived(ctx, sessionID, func() error { return s.replaceMessages(ctx, sessionID, msgs, encoded) })
}

func (s *Store) replaceMessages(ctx context.Context, sessionID string, msgs []llm.Message, encoded []string) error {
	now := s.now().UnixNano()
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ? WHERE id = ?`, now, sessionID)
		if err := checkUpdated(res, err, sessionID, "replace messages"); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM messages WHERE session_id = ?`, sessionID); err != nil {
			return fmt.Errorf("replace messages of session %s: %w", sessionID, err)
		}
		stmt, err := tx.PrepareContext(ctx, `INSERT INTO messages (session_id, seq, role, parts, created_at, model)
			VALUES (?, ?, ?, ?, ?, ?)`)
		if err != nil {
			return fmt.Errorf("replace messages of session %s: %w", sessionID, err)
		}
		defer stmt.Close()
		for i, m := range msgs {
			if _, err := stmt.ExecContext(ctx, sessionID, i+1, string(m.Role), encoded[i], now, m.Model); err != nil {
				return fmt.Errorf("replace messages of session %s: %w", sessionID, err)
			}
		}
		return nil
	})
}

// SaveTodos implements [agent.Store]: it replaces the session's plan.
// Errors wrap [ErrNotFound] for an unknown session id.
func (s *Store) SaveTodos(ctx context.Context, sessionID string, todos []agent.Todo) error {
	if todos == nil {
		todos = []agent.Todo{}
	}
	b, err := json.Marshal(todos)
	if err != nil {
		return fmt.Errorf("save plan of session %s: %w", sessionID, err)
	}
	return s.revived(ctx, sessionID, func() error {
		return s.write(ctx, func(tx *sql.Tx) error {
			res, err := tx.ExecContext(ctx, `UPDATE sessions SET todos = ?, updated_at = ? WHERE id = ?`,
				string(b), s.now().UnixNano(), sessionID)
			return checkUpdated(res, err, sessionID, "save plan")
		})
	})
}

// AddUsage adds tokens and a cost in US dollars to the session's totals
// without a message: for model calls whose answer is not kept as a message
// (the summary request of a compaction). Errors wrap [ErrNotFound] for an
// unknown session id.
func (s *Store) AddUsage(ctx context.Context, sessionID string, u llm.Usage, costUSD float64) error {
	return s.AddModelUsage(ctx, sessionID, "", u, costUSD)
}

// AddModelUsage is [Store.AddUsage] with the "PROVIDER/MODEL" id of the
// model that answered, kept in the usage ledger for the per-model
// breakdown ([Store.Breakdown]). Errors wrap [ErrNotFound] for an unknown
// session id.
func (s *Store) AddModelUsage(ctx context.Context, sessionID, model string, u llm.Usage, costUSD float64) error {
	return s.revived(ctx, sessionID, func() error { return s.addModelUsage(ctx, sessionID, model, u, costUSD) })
}

func (s *Store) addModelUsage(ctx context.Context, sessionID, model string, u llm.Usage, costUSD float64) error {
	now := s.now().UnixNano()
	return s.write(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE sessions SET updated_at = ?,
			input_tokens = input_tokens + ?, output_tokens = output_tokens + ?,
			cache_read_tokens = cache_read_tokens + ?, cache_write_tokens = cache_write_tokens + ?,
			reasoning_tokens = reasoning_tokens + ?, cost_usd = cost_usd + ? WHERE id = ?`,
			now, u.InputTokens, u.OutputTokens, u.CacheReadTokens, u.CacheWriteTokens,
			u.ReasoningTokens, costUSD, sessionID)
		if err := checkUpdated(res, err, sessionID, "add usage"); err != nil {
			return err
		}
		return logUsage(ctx, tx, sessionID, model, u, costUSD, now)
	})
}

// Priced returns an [agent.Store] that saves through s and also adds
// cost(usage), in US dollars, to the session's cost in the same
// transaction as each message that carries usage. Pass the engine's model
// price (agent.ModelInfo.Cost); build a new one when the model changes.
// A nil cost records no cost.
//
// This is how cost reaches the store: agent.Store.AppendMessage carries
// tokens only, and the price belongs to the model the caller chose.
func (s *Store) Priced(cost func(llm.Usage) float64) agent.Store {
	return pricedStore{Store: s, cost: cost}
}

type pricedStore struct {
	*Store
	cost func(llm.Usage) float64
}

// AppendMessage saves m and adds the usage and its price.
func (p pricedStore) AppendMessage(ctx context.Context, sessionID string, m llm.Message, usage *llm.Usage) error {
	var usd float64
	if usage != nil && p.cost != nil {
		usd = p.cost(*usage)
	}
	return p.appendMessage(ctx, sessionID, m, usage, usd)
}
