package app

import (
	"fmt"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// The rewind scope words were read by two parsers before
// ParseRewindScope (the web API's strict one and /rewind's): every word
// either accepted means the same scope now.
func TestParseRewindScopeKeepsTheOldWords(t *testing.T) {
	oldWeb := func(s string) (RewindScope, error) {
		switch strings.TrimSpace(s) {
		case "", "both":
			return RewindBoth, nil
		case "code":
			return RewindCode, nil
		case "conversation":
			return RewindConversation, nil
		}
		return 0, fmt.Errorf(`scope must be "code", "conversation" or "both", not %q`, s)
	}
	oldSlash := func(s string) (RewindScope, error) {
		switch strings.ToLower(strings.TrimLeft(strings.TrimSpace(s), "-")) {
		case "", "both", "all":
			return RewindBoth, nil
		case "code", "files":
			return RewindCode, nil
		case "conversation", "conv", "chat":
			return RewindConversation, nil
		}
		return 0, fmt.Errorf("unknown rewind scope %q", s)
	}
	words := []string{"", " ", "both", "all", "code", "files", "conversation", "conv", "chat", "--code", "-conversation", "CODE", " Both ",
		"sideways", "everything", "code,conversation", "--", "file"}
	for _, w := range words {
		got, err := ParseRewindScope(w)
		for name, old := range map[string]func(string) (RewindScope, error){"web": oldWeb, "/rewind": oldSlash} {
			if want, oerr := old(w); oerr == nil && (err != nil || got != want) {
				t.Errorf("%q: the old %s parser read %v, ParseRewindScope %v, %v", w, name, want, got, err)
			}
		}
		if _, oerr := oldSlash(w); (oerr != nil) != (err != nil) {
			t.Errorf("%q: ParseRewindScope error %v, the old /rewind parser %v", w, err, oerr)
		}
		if err == nil {
			if back, _ := ParseRewindScope(got.String()); back != got {
				t.Errorf("%q: String %q reads back as %v", w, got.String(), back)
			}
		}
	}
	if _, err := ParseRewindScope("sideways"); err == nil || !strings.Contains(err.Error(), `unknown rewind scope "sideways": use code, conversation or both`) {
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
		res    RewindResult
		scope  RewindScope
		cut    bool
		prompt string
	}{
		{RewindResult{Messages: 2}, RewindBoth, true, "add tests"},
		{RewindResult{Messages: 2}, RewindConversation, true, "add tests"},
		{RewindResult{Messages: 2}, RewindCode, false, ""},
		{RewindResult{Messages: 1}, RewindBoth, true, ""},
		{RewindResult{Messages: 4}, RewindBoth, false, ""},
		{RewindResult{Messages: 9}, RewindBoth, false, ""},
	} {
		cut, prompt := CutPrompt(msgs, c.res, c.scope)
		if cut != c.cut || prompt != c.prompt {
			t.Errorf("CutPrompt(%d, %v) = %v, %q; want %v, %q", c.res.Messages, c.scope, cut, prompt, c.cut, c.prompt)
		}
	}
}
