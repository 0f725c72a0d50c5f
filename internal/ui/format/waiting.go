package format

import (
	"fmt"
	"strconv"
	"time"
)

// Waiting is what front ends show while a model reads a request, before
// its first output: "waiting for ollama/qwen3:8b — reading ~2,100 tokens"
// (provider may be "", then the model alone; the token part is left out
// when inputTokens is 0). Front ends append the time waited ([Elapsed]).
func Waiting(provider, model string, inputTokens int) string {
	name := model
	if provider != "" {
		name = provider + "/" + model
	}
	s := "waiting for " + name
	if inputTokens > 0 {
		s += " — reading ~" + Thousands(inputTokens) + " tokens"
	}
	return s
}

// Elapsed formats a time waited in whole seconds: "0 s", "45 s",
// "2 min 5 s", "1 h 3 min".
func Elapsed(d time.Duration) string {
	s := int(d / time.Second)
	switch {
	case s < 60:
		return fmt.Sprintf("%d s", max(s, 0))
	case s < 3600:
		return fmt.Sprintf("%d min %d s", s/60, s%60)
	}
	return fmt.Sprintf("%d h %d min", s/3600, s%3600/60)
}

// Thousands formats n with commas between groups of three digits:
// 2100 → "2,100", 1234567 → "1,234,567".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}

// Spinner returns frame i of the spinner every front end shows while
// something works (i counts ticks; any value, it wraps).
func Spinner(i int) string {
	frames := [...]string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}
	n := len(frames)
	return frames[(i%n+n)%n]
}
