package engine

import (
	"context"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/config"
)

// Spender is the session store's sum of what was spent (see
// session.Store.Spent): USD and tokens of sessionID's responses since a
// time.
type Spender interface {
	Spent(ctx context.Context, sessionID string, since time.Time) (agent.Spending, error)
}

// Budget is the engine's cost governor from [budget] c (run_usd, which
// --max-cost sets, session_usd, daily_usd, max_tokens; USD and tokens);
// runUSD, when > 0, replaces run_usd (a Ralph task's share of its run's
// --max-cost). sp, when not nil, says what the session and today (from
// local midnight) spent before each run.
func Budget(c config.Budget, runUSD float64, sp Spender) agent.Budget {
	b := agent.Budget{RunUSD: c.RunUSD, SessionUSD: c.SessionUSD, DailyUSD: c.DailyUSD, MaxTokens: c.MaxTokens}
	if runUSD > 0 {
		b.RunUSD = runUSD
	}
	if sp != nil {
		b.Spent = func(ctx context.Context, id string) (agent.Spending, error) {
			return sp.Spent(ctx, id, localMidnight(time.Now()))
		}
	}
	return b
}

// localMidnight is the start of t's day in the local time zone: the daily
// budget counts from it.
func localMidnight(t time.Time) time.Time {
	y, m, d := t.Local().Date()
	return time.Date(y, m, d, 0, 0, 0, 0, time.Local)
}
