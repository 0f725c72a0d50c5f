package session

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/zelvior/aidex/internal/llm"
)

// storedRow is a message row as read, before its JSON is decoded.
type storedRow struct {
	parts, usage []byte
}

// parallelDecodeMin is the number of messages from which loadMessages
// decodes on every CPU (below it, one goroutine is as fast).
const parallelDecodeMin = 64

// loadMessages reads the messages of session id in order. Rows are read
// first and their JSON (most of the time a long session takes to load:
// 4 KiB tool results) decoded afterwards, in parallel for a long session.
// A corrupt row fails the load naming the first such message.
func loadMessages(ctx context.Context, q querier, id string) ([]storedMessage, error) {
	return queryMessages(ctx, q, id, `SELECT seq, role, parts, usage, created_at, model, cost_usd FROM messages
		WHERE session_id = ? ORDER BY seq`, id)
}

// queryMessages reads the messages query selects (seq, role, parts,
// usage, created_at, model, cost_usd; in order) and decodes them as loadMessages does.
func queryMessages(ctx context.Context, q querier, id, query string, args ...any) ([]storedMessage, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("load messages of %s: %w", id, err)
	}
	defer rows.Close()
	var (
		out []storedMessage
		raw []storedRow
	)
	for rows.Next() {
		var (
			m  storedMessage
			r  storedRow
			at int64
		)
		if err := rows.Scan(&m.Seq, &m.Role, &r.parts, &r.usage, &at, &m.Model, &m.CostUSD); err != nil {
			return nil, fmt.Errorf("load messages of %s: %w", id, err)
		}
		m.CreatedAt = time.Unix(0, at)
		out, raw = append(out, m), append(raw, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("load messages of %s: %w", id, err)
	}
	if err := decodeRows(id, out, raw); err != nil {
		return nil, err
	}
	return out, nil
}

// decodeRows decodes raw[i] into out[i]: on GOMAXPROCS goroutines, each a
// contiguous share, when there are parallelDecodeMin rows or more. The
// error is the one of the first corrupt row.
func decodeRows(id string, out []storedMessage, raw []storedRow) error {
	workers := min(runtime.GOMAXPROCS(0), len(raw)/parallelDecodeMin)
	if workers <= 1 {
		return decodeRange(id, out, raw)
	}
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		lo, hi := len(raw)*w/workers, len(raw)*(w+1)/workers
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = decodeRange(id, out[lo:hi], raw[lo:hi])
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// decodeRange decodes each row of raw into out, stopping at the first
// corrupt one.
func decodeRange(id string, out []storedMessage, raw []storedRow) error {
	for i := range raw {
		m := &out[i]
		if err := json.Unmarshal(raw[i].parts, &m.Parts); err != nil {
			return fmt.Errorf("load message %d of %s: stored parts are corrupt: %w", m.Seq, id, err)
		}
		if raw[i].usage != nil {
			m.Usage = new(llm.Usage)
			if err := json.Unmarshal(raw[i].usage, m.Usage); err != nil {
				return fmt.Errorf("load message %d of %s: stored usage is corrupt: %w", m.Seq, id, err)
			}
		}
	}
	return nil
}
