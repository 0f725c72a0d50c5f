package engine

import (
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/config"
)

func TestBudget(t *testing.T) {
	c := config.Budget{RunUSD: 0.5, SessionUSD: 2, DailyUSD: 5, MaxTokens: 9000}
	b := Budget(c, 0, nil)
	if b.RunUSD != 0.5 || b.SessionUSD != 2 || b.DailyUSD != 5 || b.MaxTokens != 9000 || b.Spent != nil {
		t.Errorf("Budget(c, 0, nil) = %+v, want the config's limits and no Spent", b)
	}
	if got := Budget(c, 0.1, nil).RunUSD; got != 0.1 {
		t.Errorf("RunUSD = %v, want 0.1: Ralph's share replaces run_usd", got)
	}
	now := time.Date(2026, 3, 1, 15, 4, 5, 0, time.Local)
	if got, want := localMidnight(now), time.Date(2026, 3, 1, 0, 0, 0, 0, time.Local); !got.Equal(want) {
		t.Errorf("localMidnight(%v) = %v, want %v", now, got, want)
	}
}
