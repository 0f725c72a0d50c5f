package commands

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// /multi add, MODE, list and remove change and show the session's
// active models and conversation mode; an unknown model or mode is an
// error and changes nothing.
func TestMultiCommand(t *testing.T) {
	f := closedFixture(t)
	out, _ := f.mustExec(t, "/multi")
	require.Contains(t, out, "mode: single")
	require.Contains(t, out, "active models: none")

	_, _, err := f.exec(t, "/multi parallel")
	require.ErrorContains(t, err, "no active models for parallel mode")

	out, _ = f.mustExec(t, "/multi add groq/meta-llama/llama-4-scout-17b-16e-instruct effort=high")
	require.Contains(t, out, "added groq/meta-llama/llama-4-scout-17b-16e-instruct effort=high")
	require.Contains(t, out, "1. groq/llama-3.3-70b-versatile", "the session's model comes first")
	require.Empty(t, f.c.MultiLabel(), "single mode: the session's model answers alone")

	_, _, err = f.exec(t, "/multi add groq/nope")
	require.ErrorContains(t, err, "unknown model")
	require.Len(t, f.c.Multi().Models, 2)

	_, _, err = f.exec(t, "/multi zigzag")
	require.ErrorContains(t, err, "unknown conversation mode")

	out, _ = f.mustExec(t, "/multi round-robin")
	require.Contains(t, out, "mode: round-robin")
	require.Equal(t, "round-robin: llama-3.3-70b-versatile, llama-4-scout-17b-16e-instruct", f.c.MultiLabel())

	out, _ = f.mustExec(t, "/multi remove llama-3.3-70b-versatile")
	require.Contains(t, out, "1. groq/meta-llama/llama-4-scout-17b-16e-instruct effort=high")
	_, _ = f.mustExec(t, "/multi remove groq/meta-llama/llama-4-scout-17b-16e-instruct")
	require.Equal(t, "single", string(f.c.Multi().Mode), "no models left: single again")
}
