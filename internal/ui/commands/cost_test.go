package commands

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func TestCostBreakdownAndEstimate(t *testing.T) {
	f := newFixture(t, "",
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"a.txt"}`}}},
		llmtest.Turn{Text: "read it"})
	require.NoError(t, os.WriteFile(filepath.Join(f.ws, "a.txt"), []byte("some text\n"), 0o644))
	_, err := f.c.Run(context.Background(), []llm.Part{{Type: llm.PartText, Text: "read a.txt"}}, func(agent.Event) {})
	require.NoError(t, err)

	out, _ := f.mustExec(t, "/cost")
	require.Contains(t, out, "input 200 · output 20")
	require.Contains(t, out, "by model:\n  fake/m1 · 2 responses · input 200 · output 20 tokens · $0\n")
	require.Contains(t, out, "  #2 · prompt 1 · fake/m1 · input 100 · output 10 tokens · $0\n")
	require.Contains(t, out, "by tool (")
	require.Contains(t, out, "  read_file · 1 results · ")

	out, _ = f.mustExec(t, "/cost estimate what next?")
	require.Contains(t, out, "next request: ~")
	require.Contains(t, out, `fake/m1: price unknown (set input_price and output_price in [providers.fake.models."m1"])`)
	require.Len(t, f.script.Requests(), 2, "an estimate calls no model")

	_, _, err = f.exec(t, "/cost everything")
	require.ErrorContains(t, err, `/cost takes no argument or estimate [PROMPT], not "everything"`)
}
