package app

import (
	"context"
	"errors"
	"time"
)

// API CONTRACT (issue 16, checkpoints). The bodies below are placeholders
// of the base branch; the checkpoint engineer replaces them. Front ends
// (TUI /rewind, line mode /rewind, web Rewind button) and the CLI
// (`aidex checkpoints list`, `aidex rewind`) use only these.

// errCheckpointsPending is the placeholder's error; it never reaches main.
var errCheckpointsPending = errors.New("checkpoints: not implemented in the base branch")

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

// RewindScope says what a rewind restores.
type RewindScope int

// The scopes of a rewind: the files, the conversation, or both (the
// default of `aidex rewind`).
const (
	RewindCode RewindScope = 1 << iota
	RewindConversation
	RewindBoth = RewindCode | RewindConversation
)

// RewindResult is what a rewind did.
type RewindResult struct {
	// Restored are the files written back (changed or deleted since the
	// checkpoint); Deleted the files removed (new since it).
	Restored, Deleted []string
	// Messages is the conversation's length after the rewind (unchanged
	// when the scope has no RewindConversation).
	Messages int
	// Undo is the id of the checkpoint taken just before the rewind, so
	// the rewind itself can be rewound ("" when nothing was snapshotted).
	Undo string
}

// Checkpoints lists the checkpoints of session id, oldest first ("" for
// every session of the runtime's workspace). Errors: session.ErrNotFound
// for an unknown id; the store's and git's.
func (s *Service) Checkpoints(ctx context.Context, id string) ([]Checkpoint, error) {
	return nil, errCheckpointsPending
}

// Rewind restores checkpoint cp of session id ("" for the session that
// owns cp) within scope, for a session no live front end holds (the
// CLI). Errors: ErrUnknownCheckpoint (wrapped, naming the id) for an
// unknown checkpoint; the session's lock error when another aidex runs
// it; the store's and git's.
func (s *Service) Rewind(ctx context.Context, id, cp string, scope RewindScope) (RewindResult, error) {
	return RewindResult{}, errCheckpointsPending
}

// ErrUnknownCheckpoint is wrapped by Rewind for an id no checkpoint has.
var ErrUnknownCheckpoint = errors.New("unknown checkpoint")

// Checkpoints lists this live session's checkpoints, oldest first.
func (ls *Session) Checkpoints(ctx context.Context) ([]Checkpoint, error) {
	return nil, errCheckpointsPending
}

// Rewind restores checkpoint cp of this live session within scope and,
// when the scope includes the conversation, reloads the conversation so
// the next Run continues from the cut. Errors: agent.ErrBusy while a run
// is going; as Service.Rewind.
func (ls *Session) Rewind(ctx context.Context, cp string, scope RewindScope) (RewindResult, error) {
	return RewindResult{}, errCheckpointsPending
}
