package app

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/checkpoint"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/session"
)

// snapshotStore is what the turn hook needs of the session store
// (*session.Store).
type snapshotStore interface {
	TurnPoint(ctx context.Context, id string) (session.TurnPoint, error)
	AddSnapshot(ctx context.Context, sn session.Snapshot) (session.Snapshot, error)
}

// openRepo opens the shadow repository of workspace ws under the
// runtime's state directory.
func (rt *Runtime) openRepo(ctx context.Context, ws string) (*checkpoint.Repo, error) {
	return checkpoint.Open(ctx, checkpoint.Options{StateDir: rt.Config.Paths.StateDir, Workspace: ws})
}

// gitAvailable reports whether git is on PATH: without it, file tools
// keep per-file checkpoints in the store instead of turn snapshots.
func gitAvailable() bool {
	_, err := exec.LookPath("git")
	return err == nil
}

// turnHook snapshots the workspace before the first tool call of a turn
// that may change files (once per turn: the session's turn counter,
// i.e. once per user prompt).
type turnHook struct {
	store     snapshotStore
	sessionID string
	open      func(ctx context.Context) (*checkpoint.Repo, error)

	mu   sync.Mutex
	repo *checkpoint.Repo
}

// before takes the turn's snapshot unless it was taken. Errors: the
// store's, git's (the tool call must not run: its changes could not be
// rewound).
func (h *turnHook) before(ctx context.Context) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	tp, err := h.store.TurnPoint(ctx, h.sessionID)
	if err != nil {
		return fmt.Errorf("checkpoint before the tool call: %w", err)
	}
	if tp.Snapshotted {
		return nil
	}
	if h.repo == nil {
		if h.repo, err = h.open(ctx); err != nil {
			return fmt.Errorf("checkpoint before the tool call (nothing was run): %w", err)
		}
	}
	commit, err := h.repo.Snapshot(ctx, fmt.Sprintf("turn %d of session %s", tp.Turn, h.sessionID))
	if err != nil {
		return fmt.Errorf("checkpoint before the tool call (nothing was run): %w", err)
	}
	_, err = h.store.AddSnapshot(ctx, session.Snapshot{SessionID: h.sessionID, Turn: tp.Turn, Kind: session.SnapshotTurn,
		Prompt: tp.Prompt, Messages: tp.Messages, Commit: commit})
	if err != nil {
		return fmt.Errorf("checkpoint before the tool call (nothing was run): %w", err)
	}
	return nil
}

// describe turns store rows into Checkpoints, with the files changed
// between each and the next snapshot of its workspace (the workspace now
// for the latest).
func (s *Service) describe(ctx context.Context, rows []session.Snapshot) ([]Checkpoint, error) {
	out := make([]Checkpoint, len(rows))
	repos := map[string]*checkpoint.Repo{}
	rt := s.Runtime()
	for i, sn := range rows {
		out[i] = Checkpoint{ID: sn.ID, SessionID: sn.SessionID, Time: sn.Time, Prompt: sn.Prompt, Messages: sn.Messages, Files: []string{}}
		repo, ok := repos[sn.Workspace]
		if !ok {
			var err error
			if repo, err = rt.openRepo(ctx, sn.Workspace); err != nil {
				return nil, err
			}
			repos[sn.Workspace] = repo
		}
		next, err := s.nextCommit(ctx, sn)
		if err != nil {
			return nil, err
		}
		files, err := repo.Changed(ctx, sn.Commit, next)
		if err != nil {
			return nil, err
		}
		if files != nil {
			out[i].Files = files
		}
	}
	return out, nil
}

// nextCommit returns the commit of the snapshot after sn in its workspace
// ("" when sn is the latest).
func (s *Service) nextCommit(ctx context.Context, sn session.Snapshot) (string, error) {
	all, err := s.store.Snapshots(ctx, "", sn.Workspace)
	if err != nil {
		return "", err
	}
	for i, o := range all {
		if o.ID == sn.ID && i+1 < len(all) {
			return all[i+1].Commit, nil
		}
	}
	return "", nil
}

// snapshotOf looks up checkpoint cp, which must belong to session id
// when id is not "". Errors wrap ErrUnknownCheckpoint, session.ErrNotFound.
func (s *Service) snapshotOf(ctx context.Context, id, cp string) (session.Snapshot, error) {
	sn, err := s.store.SnapshotByID(ctx, cp)
	if err != nil {
		return session.Snapshot{}, err
	}
	if id == "" {
		return sn, nil
	}
	sum, err := s.store.Info(ctx, id)
	if err != nil {
		return session.Snapshot{}, err
	}
	if sum.ID != sn.SessionID {
		return session.Snapshot{}, fmt.Errorf("%w: checkpoint %s belongs to session %s, not %s", ErrUnknownCheckpoint,
			sn.ID, sn.SessionID, sum.ID)
	}
	return sn, nil
}

// rewind restores snapshot sn within scope: the conversation is checked
// first (nothing is changed when it cannot be cut), then the files (after
// a snapshot of the workspace as it is, so the rewind can be rewound),
// then the conversation is cut.
func (s *Service) rewind(ctx context.Context, sn session.Snapshot, scope RewindScope) (RewindResult, error) {
	if scope&RewindBoth == 0 {
		return RewindResult{}, errors.New("rewind: nothing to restore: give the code, the conversation or both")
	}
	sess, err := s.store.Load(ctx, sn.SessionID)
	if err != nil {
		return RewindResult{}, err
	}
	res := RewindResult{Messages: len(sess.Messages), Restored: []string{}, Deleted: []string{}, Kept: []string{}}
	keep := res.Messages
	if scope&RewindConversation != 0 {
		if keep, err = cutPoint(sess.Messages, sn); err != nil {
			return RewindResult{}, err
		}
	}
	if scope&RewindCode != 0 {
		desc := fmt.Sprintf("before rewind to %s: %s", sn.ID, sn.Prompt)
		if err := s.rewindCode(ctx, sn, desc, len(sess.Messages), &res); err != nil {
			return res, err
		}
	}
	if scope&RewindConversation != 0 && keep < len(sess.Messages) {
		if err := s.store.TruncateMessages(ctx, sn.SessionID, keep); err != nil {
			return res, err
		}
		res.Messages = keep
	}
	return res, nil
}

// cutPoint returns how many messages a conversation rewind to sn keeps.
// A turn's snapshot names the prompt that starts the exchange: the
// message there must still be that prompt (a compaction since rewrote
// the conversation). A rewind's snapshot keeps at most its length.
func cutPoint(msgs []llm.Message, sn session.Snapshot) (int, error) {
	if sn.Kind == session.SnapshotRewind {
		return min(sn.Messages, len(msgs)), nil
	}
	if sn.Messages >= len(msgs) || msgs[sn.Messages].Role != llm.RoleUser ||
		strings.TrimSpace(msgs[sn.Messages].Text()) != strings.TrimSpace(sn.Prompt) {
		return 0, fmt.Errorf("rewind %s: the conversation no longer has that prompt at message %d (it was compacted or cut since); rewind the code only (--code)",
			sn.ID, sn.Messages+1)
	}
	return sn.Messages, nil
}

// rewindCode snapshots the workspace (recorded as a rewind checkpoint
// described by desc, with messages the conversation's length) and then
// restores sn's files into res.
func (s *Service) rewindCode(ctx context.Context, sn session.Snapshot, desc string, messages int, res *RewindResult) error {
	repo, err := s.Runtime().openRepo(ctx, sn.Workspace)
	if err != nil {
		return err
	}
	tp, err := s.store.TurnPoint(ctx, sn.SessionID)
	if err != nil {
		return err
	}
	commit, err := repo.Snapshot(ctx, desc)
	if err != nil {
		return err
	}
	undo, err := s.store.AddSnapshot(ctx, session.Snapshot{SessionID: sn.SessionID, Turn: tp.Turn,
		Kind: session.SnapshotRewind, Prompt: desc, Messages: messages, Commit: commit})
	if err != nil {
		return err
	}
	res.Undo = undo.ID
	r, err := repo.Restore(ctx, sn.Commit)
	res.Restored, res.Deleted, res.Kept = nonNil(r.Written), nonNil(r.Deleted), nonNil(r.Kept)
	return err
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// undoSnapshot undoes the last turn of session id (a full id) with its
// turn snapshot; ok is false when the session's last change has no turn
// snapshot (per-file checkpoints of earlier versions, or none). The
// snapshot is dropped afterwards, so the next undo goes one turn further
// back; the state before the undo is kept as a rewind checkpoint.
func (s *Service) undoSnapshot(ctx context.Context, id string) (undone []session.Undone, ok bool, err error) {
	rows, err := s.store.Snapshots(ctx, id, "")
	if err != nil {
		return nil, false, err
	}
	var last *session.Snapshot
	for i := range rows {
		if rows[i].Kind == session.SnapshotTurn {
			last = &rows[i]
		}
	}
	if last == nil {
		return nil, false, nil
	}
	if turn, has, err := s.store.LastFileCheckpointTurn(ctx, id); err != nil || (has && turn > last.Turn) {
		return nil, false, err
	}
	unlock, err := lockSession(s.lockDir, id)
	if err != nil {
		return nil, true, err
	}
	defer unlock()
	sess, err := s.store.Load(ctx, id)
	if err != nil {
		return nil, true, err
	}
	var res RewindResult
	err = s.rewindCode(ctx, *last, "before undo of: "+last.Prompt, len(sess.Messages), &res)
	for _, p := range res.Restored {
		undone = append(undone, session.Undone{Path: filepath.Join(last.Workspace, filepath.FromSlash(p))})
	}
	for _, p := range res.Deleted {
		undone = append(undone, session.Undone{Path: filepath.Join(last.Workspace, filepath.FromSlash(p)), Deleted: true})
	}
	sort.Slice(undone, func(i, j int) bool { return undone[i].Path < undone[j].Path })
	if err != nil {
		return undone, true, err
	}
	return undone, true, s.store.DeleteSnapshot(ctx, last.ID)
}
