package engine

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"sync"

	"github.com/zelvior/aidex/internal/checkpoint"
	"github.com/zelvior/aidex/internal/session"
)

// SnapshotStore is what the turn hook needs of the session store
// (*session.Store): the turn's point and a place for its snapshot.
type SnapshotStore interface {
	TurnPoint(ctx context.Context, id string) (session.TurnPoint, error)
	AddSnapshot(ctx context.Context, sn session.Snapshot) (session.Snapshot, error)
}

// GitAvailable reports whether git is on PATH: without it, file tools
// keep per-file checkpoints in the store instead of turn snapshots.
func GitAvailable() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

// TurnHook snapshots the workspace before the first tool call of a turn
// that may change files (once per turn: the session's turn counter,
// i.e. once per user prompt). A user command's hook (command set,
// app's Session.UserChange) snapshots once, before the command's first
// change, as a checkpoint of kind command that keeps the conversation.
type TurnHook struct {
	// Store records the snapshots; SessionID is the session they belong
	// to; Open opens the workspace's shadow repository on first use.
	Store     SnapshotStore
	SessionID string
	Open      func(ctx context.Context) (*checkpoint.Repo, error)
	// Command describes a user command's change ("/save-code"); Messages
	// is the conversation's length when it ran.
	Command  string
	Messages int

	mu   sync.Mutex
	repo *checkpoint.Repo
	// skipped says turn skippedTurn was too large to snapshot.
	skipped     bool
	skippedTurn int64
	// taken says a user command's snapshot was taken (or skipped).
	taken bool
}

// Before takes the turn's snapshot unless it was taken. When the
// workspace is too large to snapshot (checkpoint.ErrTooLarge) the turn
// goes on without one: note says so, once per turn, for the tool's
// output. Errors: the store's, git's (the tool call must not run: its
// changes could not be rewound).
func (h *TurnHook) Before(ctx context.Context) (note string, err error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	tp, err := h.Store.TurnPoint(ctx, h.SessionID)
	if err != nil {
		return "", fmt.Errorf("checkpoint before the tool call: %w", err)
	}
	sn := session.Snapshot{SessionID: h.SessionID, Turn: tp.Turn, Kind: session.SnapshotTurn, Prompt: tp.Prompt, Messages: tp.Messages}
	switch {
	case h.Command != "" && h.taken:
		return "", nil
	case h.Command != "":
		sn.Kind, sn.Prompt, sn.Messages = session.SnapshotCommand, h.Command, h.Messages
	case tp.Snapshotted || (h.skipped && h.skippedTurn == tp.Turn):
		return "", nil
	}
	if h.repo == nil {
		if h.repo, err = h.Open(ctx); err != nil {
			return "", fmt.Errorf("checkpoint before the tool call (nothing was run): %w", err)
		}
	}
	sn.Commit, err = h.repo.Snapshot(ctx, fmt.Sprintf("turn %d of session %s", tp.Turn, h.SessionID))
	if errors.Is(err, checkpoint.ErrTooLarge) {
		h.skipped, h.skippedTurn, h.taken = true, tp.Turn, true
		return fmt.Sprintf("[aidex: no checkpoint of this turn, so undo and rewind cannot restore it: %v]\n", err), nil
	}
	if err != nil {
		return "", fmt.Errorf("checkpoint before the tool call (nothing was run): %w", err)
	}
	if _, err = h.Store.AddSnapshot(ctx, sn); err != nil {
		return "", fmt.Errorf("checkpoint before the tool call (nothing was run): %w", err)
	}
	h.taken = true
	return "", nil
}

// NoFileCheckpoints is the file tools' Checkpointer when turn snapshots
// cover their changes: it keeps nothing.
type NoFileCheckpoints struct{}

// Save implements tools.Checkpointer; it keeps nothing and never fails.
// Save keeps nothing.
func (NoFileCheckpoints) Save(context.Context, string, []byte, bool) error { return nil }
