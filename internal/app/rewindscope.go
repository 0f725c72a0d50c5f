package app

import (
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/llm"
)

// ParseRewindScope reads a rewind scope as every front end takes it
// (/rewind's word, the web API's "scope"): "" or "both" (also "all":
// files and conversation), "code" (or "files"), "conversation" (or
// "conv", "chat"), in any case, a leading "--" accepted ("--code", as
// `aidex rewind`'s flags). Errors name the accepted words.
func ParseRewindScope(s string) (RewindScope, error) {
	switch strings.ToLower(strings.TrimLeft(strings.TrimSpace(s), "-")) {
	case "", "both", "all":
		return RewindBoth, nil
	case "code", "files":
		return RewindCode, nil
	case "conversation", "conv", "chat":
		return RewindConversation, nil
	}
	return 0, fmt.Errorf("unknown rewind scope %q: use code, conversation or both (the default)", s)
}

// String is the scope's word: "code", "conversation" or "both" (what
// ParseRewindScope reads back).
func (s RewindScope) String() string {
	switch s {
	case RewindCode:
		return "code"
	case RewindConversation:
		return "conversation"
	}
	return "both"
}

// promptAt reports whether msgs[i] is the user prompt prompt (compared
// trimmed): the rule by which a checkpoint's prompt is still where a
// conversation rewind would cut.
func promptAt(msgs []llm.Message, i int, prompt string) bool {
	return i >= 0 && i < len(msgs) && msgs[i].Role == llm.RoleUser &&
		strings.TrimSpace(msgs[i].Text()) == strings.TrimSpace(prompt)
}

// AtMessage is the index of cp's prompt in msgs (the conversation as it
// is now), or -1 when msgs no longer holds that prompt there (cut or
// compacted since, or cp is a checkpoint a rewind took of the files): a
// conversation rewind to cp would then cut nothing.
func (cp Checkpoint) AtMessage(msgs []llm.Message) int {
	if !promptAt(msgs, cp.Messages, cp.Prompt) {
		return -1
	}
	return cp.Messages
}

// CutPrompt says what a rewind within scope that left res did to the
// conversation before (its messages before the rewind): whether it was
// cut (cut), and the user prompt the cut removed first (prompt, trimmed;
// "" when the message there is not a user prompt).
func CutPrompt(before []llm.Message, res RewindResult, scope RewindScope) (cut bool, prompt string) {
	if scope&RewindConversation == 0 || res.Messages < 0 || res.Messages >= len(before) {
		return false, ""
	}
	if m := before[res.Messages]; m.Role == llm.RoleUser {
		prompt = strings.TrimSpace(m.Text())
	}
	return true, prompt
}
