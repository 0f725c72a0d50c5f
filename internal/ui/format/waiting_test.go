package format

import (
	"testing"
	"time"
)

func TestWaiting(t *testing.T) {
	cases := []struct {
		provider, model string
		tokens          int
		want            string
	}{
		{"ollama", "qwen3:8b", 2100, "waiting for ollama/qwen3:8b — reading ~2,100 tokens"},
		{"", "m", 999, "waiting for m — reading ~999 tokens"},
		{"groq", "llama", 0, "waiting for groq/llama"},
	}
	for _, c := range cases {
		if got := Waiting(c.provider, c.model, c.tokens); got != c.want {
			t.Errorf("Waiting(%q, %q, %d) = %q, want %q", c.provider, c.model, c.tokens, got, c.want)
		}
	}
}

func TestElapsedAndThousands(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0 s", 45*time.Second + 900*time.Millisecond: "45 s",
		125 * time.Second: "2 min 5 s", 3780 * time.Second: "1 h 3 min", -time.Second: "0 s"} {
		if got := Elapsed(d); got != want {
			t.Errorf("Elapsed(%s) = %q, want %q", d, got, want)
		}
	}
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 2100: "2,100", 1234567: "1,234,567", -4500: "-4,500"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
