package rewind

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// The rewind scope words were read by two parsers before
// ParseScope (the web API's strict one and /rewind's): every word
// either accepted means the same scope now.
func TestParseScopeKeepsTheOldWords(t *testing.T) {
	oldWeb := func(s string) (Scope, error) {
		switch strings.TrimSpace(s) {
		case "", "both":
			return Both, nil
		case "code":
			return Code, nil
		case "conversation":
			return Conversation, nil
		}
		return 0, fmt.Errorf(`scope must be "code", "conversation" or "both", not %q`, s)
	}
	oldSlash := func(s string) (Scope, error) {
		switch strings.ToLower(strings.TrimLeft(strings.TrimSpace(s), "-")) {
		case "", "both", "all":
			return Both, nil
		case "code", "files":
			return Code, nil
		case "conversation", "conv", "chat":
			return Conversation, nil
		}
		return 0, fmt.Errorf("unknown rewind scope %q", s)
	}
	words := []string{"", " ", "both", "all", "code", "files", "conversation", "conv", "chat", "--code", "-conversation", "CODE", " Both ",
		"sideways", "everything", "code,conversation", "--", "file"}
	for _, w := range words {
		got, err := ParseScope(w)
		for name, old := range map[string]func(string) (Scope, error){"web": oldWeb, "/rewind": oldSlash} {
			if want, oerr := old(w); oerr == nil && (err != nil || got != want) {
				t.Errorf("%q: the old %s parser read %v, ParseScope %v, %v", w, name, want, got, err)
			}
		}
		if _, oerr := oldSlash(w); (oerr != nil) != (err != nil) {
			t.Errorf("%q: ParseScope error %v, the old /rewind parser %v", w, err, oerr)
		}
		if err == nil {
			if back, _ := ParseScope(got.String()); back != got {
				t.Errorf("%q: String %q reads back as %v", w, got.String(), back)
			}
		}
	}
	if _, err := ParseScope("sideways"); err == nil || !strings.Contains(err.Error(), `unknown rewind scope "sideways": use code, conversation or both`) {
		t.Errorf("error %v", err)
	}
}

// The prompt-at-message rule (a checkpoint's prompt is still the user
// message at its index) serves the cut point, the web's at_message and
// the prompt a cut removed.
func TestPromptAtMessage(t *testing.T) {
	user := func(s string) llm.Message {
		return llm.Message{Role: llm.RoleUser, Parts: []llm.Part{{Type: llm.PartText, Text: s}}}
	}
	asst := func(s string) llm.Message {
		return llm.Message{Role: llm.RoleAssistant, Parts: []llm.Part{{Type: llm.PartText, Text: s}}}
	}
	msgs := []llm.Message{user("fix it"), asst("done"), user(" add tests \n"), asst("ok")}
	for _, c := range []struct {
		cp   Checkpoint
		want int
	}{
		{Checkpoint{Messages: 0, Prompt: "fix it"}, 0},
		{Checkpoint{Messages: 2, Prompt: "add tests"}, 2},
		{Checkpoint{Messages: 2, Prompt: "other"}, -1},
		{Checkpoint{Messages: 1, Prompt: "done"}, -1},
		{Checkpoint{Messages: 4, Prompt: "x"}, -1},
		{Checkpoint{Messages: -1, Prompt: "x"}, -1},
	} {
		if got := c.cp.AtMessage(msgs); got != c.want {
			t.Errorf("AtMessage(%+v) = %d, want %d", c.cp, got, c.want)
		}
	}
	for _, c := range []struct {
		res    Result
		scope  Scope
		cut    bool
		prompt string
	}{
		{Result{Messages: 2}, Both, true, "add tests"},
		{Result{Messages: 2}, Conversation, true, "add tests"},
		{Result{Messages: 2}, Code, false, ""},
		{Result{Messages: 1}, Both, true, ""},
		{Result{Messages: 4}, Both, false, ""},
		{Result{Messages: 9}, Both, false, ""},
	} {
		cut, prompt := CutPrompt(msgs, c.res, c.scope)
		if cut != c.cut || prompt != c.prompt {
			t.Errorf("CutPrompt(%d, %v) = %v, %q; want %v, %q", c.res.Messages, c.scope, cut, prompt, c.cut, c.prompt)
		}
	}
}
