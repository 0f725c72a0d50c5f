// Package rewind is the room of app that front ends use for checkpoints
// and rewinds (TUI and line mode /rewind, the web UI's Rewind button,
// `aidex checkpoints list`, `aidex rewind`): a checkpoint as a front end
// lists it, what a rewind restores (Scope) and what it did (Result), and
// the errors to match with errors.Is. app makes the checkpoints and the
// rewinds (Service.Checkpoints, Service.Rewind, Session.Checkpoints,
// Session.Rewind); this package imports nothing of app.
package rewind

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
)

// Checkpoint is a snapshot of the workspace taken before a turn that may
// change files (a writing tool or any command ran in it).
type Checkpoint struct {
	// ID names the checkpoint in `aidex rewind ID` (short, unique in the
	// workspace).
	ID string `json:"id"`
	// SessionID is the session whose turn it precedes.
	SessionID string `json:"session_id"`
	// Time is when the snapshot was taken.
	Time time.Time `json:"time"`
	// Prompt is the user prompt of the exchange the turn belongs to
	// (what a picker shows).
	Prompt string `json:"prompt"`
	// Messages is the conversation's length (messages) before that
	// prompt: rewinding the conversation keeps this many.
	Messages int `json:"messages"`
	// Files are the workspace-relative paths that changed between this
	// checkpoint and the next one (or the workspace now, for the latest).
	Files []string `json:"files"`
}

// Scope says what a rewind restores.
type Scope int

// The scopes of a rewind: the files, the conversation, or both (the
// default of `aidex rewind`).
const (
	Code Scope = 1 << iota
	Conversation
	Both = Code | Conversation
)

// Result is what a rewind did.
type Result struct {
	// Restored are the files written back (changed or deleted since the
	// checkpoint); Deleted the files removed (new since it).
	Restored []string `json:"restored"`
	Deleted  []string `json:"deleted"`
	// Messages is the conversation's length after the rewind (unchanged
	// when the scope has no Conversation).
	Messages int `json:"messages"`
	// Undo is the id of the checkpoint taken just before the rewind, so
	// the rewind itself can be rewound ("" when nothing was snapshotted).
	Undo string `json:"undo"`
	// Kept are files that differ from the checkpoint but were left alone:
	// over the size cap, or ignored (workspace-relative).
	Kept []string `json:"kept"`
}

// ErrUnknownCheckpoint is wrapped by app's Rewind for an id no
// checkpoint has.
var ErrUnknownCheckpoint = session.ErrUnknownSnapshot

// ErrOtherWorkspace is wrapped by app's Rewind for a checkpoint of
// another workspace than the runtime's: a rewind changes that
// workspace's files, so it is done from there.
var ErrOtherWorkspace = errors.New("checkpoint of another workspace")

// ParseScope reads a rewind scope as every front end takes it
// (/rewind's word, the web API's "scope"): "" or "both" (also "all":
// files and conversation), "code" (or "files"), "conversation" (or
// "conv", "chat"), in any case, a leading "--" accepted ("--code", as
// `aidex rewind`'s flags). Errors name the accepted words.
func ParseScope(s string) (Scope, error) {
	switch strings.ToLower(strings.TrimLeft(strings.TrimSpace(s), "-")) {
	case "", "both", "all":
		return Both, nil
	case "code", "files":
		return Code, nil
	case "conversation", "conv", "chat":
		return Conversation, nil
	}
	return 0, fmt.Errorf("unknown rewind scope %q: use code, conversation or both (the default)", s)
}

// String is the scope's word: "code", "conversation" or "both" (what
// ParseScope reads back).
func (s Scope) String() string {
	switch s {
	case Code:
		return "code"
	case Conversation:
		return "conversation"
	}
	return "both"
}

// PromptAt reports whether msgs[i] is the user prompt prompt (compared
// trimmed): the rule by which a checkpoint's prompt is still where a
// conversation rewind would cut.
func PromptAt(msgs []llm.Message, i int, prompt string) bool {
	return i >= 0 && i < len(msgs) && msgs[i].Role == llm.RoleUser &&
		strings.TrimSpace(msgs[i].Text()) == strings.TrimSpace(prompt)
}

// AtMessage is the index of cp's prompt in msgs (the conversation as it
// is now), or -1 when msgs no longer holds that prompt there (cut or
// compacted since, or cp is a checkpoint a rewind took of the files): a
// conversation rewind to cp would then cut nothing.
func (cp Checkpoint) AtMessage(msgs []llm.Message) int {
	if !PromptAt(msgs, cp.Messages, cp.Prompt) {
		return -1
	}
	return cp.Messages
}

// CutPrompt says what a rewind within scope that left res did to the
// conversation before (its messages before the rewind): whether it was
// cut (cut), and the user prompt the cut removed first (prompt, trimmed;
// "" when the message there is not a user prompt).
func CutPrompt(before []llm.Message, res Result, scope Scope) (cut bool, prompt string) {
	if scope&Conversation == 0 || res.Messages < 0 || res.Messages >= len(before) {
		return false, ""
	}
	if m := before[res.Messages]; m.Role == llm.RoleUser {
		prompt = strings.TrimSpace(m.Text())
	}
	return true, prompt
}
