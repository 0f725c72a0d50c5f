package config

import "testing"

// A key missing a word of the real one ("max_turns") is suggested the
// key that holds its words in order.
func TestSuggestByWords(t *testing.T) {
	keys := []string{"max_tokens", "max_tool_turns", "max_retries", "max_background_processes"}
	for in, want := range map[string]string{"max_turns": "max_tool_turns", "max_tokns": "max_tokens", "max_processes": "max_background_processes", "turns": "", "min_turns": ""} {
		if got := suggest(in, keys); got != want {
			t.Errorf("suggest(%q) = %q, want %q", in, got, want)
		}
	}
}
