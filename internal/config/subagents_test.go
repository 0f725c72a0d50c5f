package config

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSubagentsTable(t *testing.T) {
	e := newEnv(t)
	cfg, _, err := e.load(nil)
	require.NoError(t, err)
	require.Equal(t, Subagents{MaxParallel: 4, MaxRuns: 50}, cfg.Subagents)

	writeFile(t, e.global(), "[subagents]\nmax_parallel = 2\nmax_runs = 7\n")
	cfg, _, err = e.load(nil)
	require.NoError(t, err)
	require.Equal(t, Subagents{MaxParallel: 2, MaxRuns: 7}, cfg.Subagents)

	writeFile(t, e.global(), "[subagents]\nmax_parallel = 0\n")
	_, _, err = e.load(nil)
	require.ErrorContains(t, err, "subagents.max_parallel")
}
