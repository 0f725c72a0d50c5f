package app

import "testing"

// The default reasoning effort per provider and model (issue 36 item 8):
// on where the model thinks and its first-party API shows it, off for
// local and third-party hosts and for models that cannot think or would
// be billed for thinking they do not do by default.
func TestDefaultEffort(t *testing.T) {
	for _, c := range []struct{ provider, model, want string }{
		{"anthropic", "claude-sonnet-4-5", "low"},
		{"anthropic", "claude-opus-4-1-20250805", "low"},
		{"anthropic", "claude-3-7-sonnet-latest", "low"},
		{"anthropic", "claude-haiku-4-5", "low"},
		{"anthropic", "claude-3-5-haiku-latest", ""},
		{"openai", "gpt-5", "medium"},
		{"openai", "o3-mini", "medium"},
		{"openai", "gpt-5-chat-latest", ""},
		{"openai", "gpt-4.1", ""},
		{"gemini", "gemini-2.5-pro", "low"},
		{"gemini", "gemini-3-pro-preview", "low"},
		{"gemini", "gemini-2.5-flash-lite", ""},
		{"gemini", "gemini-2.0-flash", ""},
		{"openrouter", "anthropic/claude-sonnet-4.5", ""},
		{"ollama", "qwen3:8b", ""},
		{"groq", "openai/gpt-oss-120b", ""},
	} {
		if got := defaultEffort(c.provider, c.model); got != c.want {
			t.Errorf("defaultEffort(%s, %s) = %q, want %q", c.provider, c.model, got, c.want)
		}
	}
}
