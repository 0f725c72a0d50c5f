package app

import (
	"testing"

	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm"
)

// bill_reasoning_as_output (default true) reaches the cost of a turn:
// off, reasoning tokens leave the output cost.
func TestBillReasoningAsOutputReachesCost(t *testing.T) {
	u := llm.Usage{OutputTokens: 100, ReasoningTokens: 60}
	for _, c := range []struct {
		extra    string
		unbilled bool
	}{{"", false}, {"bill_reasoning_as_output = false", true}} {
		home := apptest.NewHome(t, apptest.FakeProvider("http://127.0.0.1:1/v1", []string{"m1"}, c.extra))
		rt, err := LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv})
		if err != nil {
			t.Fatal(err)
		}
		mi := rt.ModelInfo()
		mi.OutputPrice = 1e6 // 1 USD a token
		if mi.UnbilledReasoning != c.unbilled {
			t.Fatalf("%q: UnbilledReasoning %v", c.extra, mi.UnbilledReasoning)
		}
		want := 100.0
		if c.unbilled {
			want = 40
		}
		if got := mi.Cost(u); got != want {
			t.Errorf("%q: cost %v, want %v", c.extra, got, want)
		}
	}
}
