package app

import (
	"strconv"
	"strings"
)

// reasoningOff is the reasoning_effort (and per-model effort) value that
// turns reasoning off, the default's included.
const reasoningOff = "off"

// defaultEffort is the reasoning effort aidex asks for when neither
// reasoning_effort nor thinking_budget (nor the model's own effort or
// budget) is set: thinking is on by default where the model supports it
// and its provider's API shows it (Nexus Code's choice), "" elsewhere.
//
//   - anthropic: "low" (a 4,096-token thinking budget) for Claude 3.7 and
//     Claude 4 and later models; earlier models cannot think.
//   - openai: "medium" for the reasoning models (o1, o3, o4, gpt-5 and
//     later, not the "-chat" ones): the API's own default effort, so the
//     cost is unchanged and the Responses API sends reasoning summaries.
//   - gemini: "low" (a 2,048-token budget; thinkingLevel low on Gemini 3)
//     for Gemini 2.5 and later, which think by default anyway; not the
//     "lite" models, whose thinking is off unless asked for.
//   - every other provider (OpenRouter, Groq, local servers, custom
//     hosts): "", since whether and how they bill reasoning is not known.
//
// Only the catalog's first-party provider names get a default, so a
// custom host serving the same model names stays off.
func defaultEffort(provider, model string) string {
	m := strings.ToLower(model)
	if i := strings.LastIndex(m, "/"); i >= 0 {
		m = m[i+1:]
	}
	switch provider {
	case "anthropic":
		if claudeThinks(m) {
			return "low"
		}
	case "openai":
		if openAIReasons(m) {
			return "medium"
		}
	case "gemini":
		if v, ok := versionAfter(m, "gemini-"); ok && v >= 25 && !strings.Contains(m, "lite") {
			return "low"
		}
	}
	return ""
}

// claudeThinks reports whether Claude model m (lower case) supports
// extended thinking: claude-3-7-*, claude-{sonnet,opus,haiku}-N (N ≥ 4)
// and claude-N-* (N ≥ 4).
func claudeThinks(m string) bool {
	rest, ok := strings.CutPrefix(m, "claude-")
	if !ok {
		return false
	}
	if strings.HasPrefix(rest, "3-7") {
		return true
	}
	for _, family := range []string{"sonnet-", "opus-", "haiku-"} {
		rest = strings.TrimPrefix(rest, family)
	}
	n, _ := leadingNumber(rest)
	return n >= 4
}

// openAIReasons reports whether OpenAI model m (lower case) is a
// reasoning model that takes an effort: o1, o3, o4 (and their variants),
// gpt-5 and later, except the "-chat" models.
func openAIReasons(m string) bool {
	if strings.Contains(m, "-chat") {
		return false
	}
	for _, p := range []string{"o1", "o3", "o4"} {
		if m == p || strings.HasPrefix(m, p+"-") {
			return true
		}
	}
	n, _ := leadingNumber(strings.TrimPrefix(m, "gpt-"))
	return strings.HasPrefix(m, "gpt-") && n >= 5
}

// versionAfter reads the version after prefix in m as major*10+minor
// ("gemini-2.5-pro" → 25, "gemini-3-flash" → 30); ok is false when m does
// not start with prefix and a number.
func versionAfter(m, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(m, prefix)
	if !ok {
		return 0, false
	}
	major, n := leadingNumber(rest)
	if n == 0 {
		return 0, false
	}
	minor := 0
	if r := rest[n:]; strings.HasPrefix(r, ".") {
		minor, _ = leadingNumber(r[1:])
	}
	return major*10 + min(minor, 9), true
}

// leadingNumber returns the decimal number s starts with and its length
// (0, 0 when none).
func leadingNumber(s string) (int, int) {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	v, _ := strconv.Atoi(s[:n])
	return v, n
}
