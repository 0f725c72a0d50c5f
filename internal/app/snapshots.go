package app

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"

	"github.com/zelvior/aidex/internal/app/rewind"
	"github.com/zelvior/aidex/internal/checkpoint"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ospath"
	"github.com/zelvior/aidex/internal/session"
)

// openRepo opens the shadow repository of workspace ws under the
// runtime's state directory; aidex's own folders are never snapshotted
// (a workspace that is the home folder holds them).
func (rt engineRoom) openRepo(ctx context.Context, ws string) (*checkpoint.Repo, error) {
	p := rt.Config.Paths
	return checkpoint.Open(ctx, checkpoint.Options{StateDir: p.StateDir, Workspace: ws,
		Exclude: []string{p.DataDir, p.StateDir, p.CacheDir, p.ConfigDir}})
}

// snapshots is the service's view of the workspace snapshots of its
// sessions (the checkpoints /rewind and /undo go back to): listing and
// describing them, rewinding code and conversation, undoing a turn.
type snapshots struct{ s *Service }

// describe turns store rows into Checkpoints, with the files changed
// between each and the next snapshot of its workspace (the workspace now
// for the latest).
func (ss snapshots) describe(ctx context.Context, rows []session.Snapshot) ([]rewind.Checkpoint, error) {
	out := make([]rewind.Checkpoint, len(rows))
	spaces := map[string]*wsHistory{}
	for i, sn := range rows {
		out[i] = rewind.Checkpoint{ID: sn.ID, SessionID: sn.SessionID, Time: sn.Time, Prompt: sn.Prompt, Messages: sn.Messages, Files: []string{}}
		h, ok := spaces[sn.Workspace]
		if !ok {
			var err error
			if h, err = ss.history(ctx, sn.Workspace); err != nil {
				return nil, err
			}
			spaces[sn.Workspace] = h
		}
		files, err := h.repo.Changed(ctx, sn.Commit, h.next[sn.ID])
		if err != nil && (errors.Is(err, checkpoint.ErrTooLarge) || h.lost(ctx, sn)) {
			// The workspace grew past what a snapshot takes (the files since
			// the latest checkpoint are not indexed), or the shadow repository
			// lost it (state folder cleared): no files to show.
			continue
		}
		if err != nil {
			return nil, err
		}
		if files != nil {
			out[i].Files = files
		}
	}
	return out, nil
}

// wsHistory is a workspace's shadow repository and, for each of its
// snapshots, the commit of the next one ("" for the latest).
type wsHistory struct {
	repo *checkpoint.Repo
	next map[string]string
}

// lost reports whether sn's commit, or the next one's, is missing from
// the shadow repository.
func (h *wsHistory) lost(ctx context.Context, sn session.Snapshot) bool {
	next := h.next[sn.ID]
	return !h.repo.Has(ctx, sn.Commit) || (next != "" && !h.repo.Has(ctx, next))
}

func (ss snapshots) history(ctx context.Context, ws string) (*wsHistory, error) {
	s := ss.s
	repo, err := s.Runtime().engineRoom().openRepo(ctx, ws)
	if err != nil {
		return nil, err
	}
	all, err := s.store.Snapshots(ctx, "", ws)
	if err != nil {
		return nil, err
	}
	h := &wsHistory{repo: repo, next: map[string]string{}}
	for i := 0; i+1 < len(all); i++ {
		h.next[all[i].ID] = all[i+1].Commit
	}
	return h, nil
}

// snapshotOf looks up checkpoint cp, which must belong to session id
// when id is not "". Errors wrap rewind.ErrUnknownCheckpoint, session.ErrNotFound.
func (ss snapshots) snapshotOf(ctx context.Context, id, cp string) (session.Snapshot, error) {
	s := ss.s
	sn, err := s.store.SnapshotByID(ctx, cp)
	if err != nil {
		return session.Snapshot{}, err
	}
	if ws := s.Runtime().Workspace; !ospath.Native().Same(sn.Workspace, ws) {
		return session.Snapshot{}, fmt.Errorf("%w: checkpoint %s is of workspace %s, not %s: run aidex -w %s rewind %s",
			rewind.ErrOtherWorkspace, sn.ID, sn.Workspace, ws, sn.Workspace, sn.ID)
	}
	if id == "" {
		return sn, nil
	}
	sum, err := s.store.Info(ctx, id)
	if err != nil {
		return session.Snapshot{}, err
	}
	if sum.ID != sn.SessionID {
		return session.Snapshot{}, fmt.Errorf("%w: checkpoint %s belongs to session %s, not %s", rewind.ErrUnknownCheckpoint,
			sn.ID, sn.SessionID, sum.ID)
	}
	return sn, nil
}

// rewind restores snapshot sn within scope: the conversation is checked
// first (nothing is changed when it cannot be cut), then the files (after
// a snapshot of the workspace as it is, so the rewind can be rewound),
// then the conversation is cut.
func (ss snapshots) rewind(ctx context.Context, sn session.Snapshot, scope rewind.Scope) (rewind.Result, error) {
	s := ss.s
	if scope&rewind.Both == 0 {
		return rewind.Result{}, errors.New("rewind: nothing to restore: give the code, the conversation or both")
	}
	sess, err := s.store.Load(ctx, sn.SessionID)
	if err != nil {
		return rewind.Result{}, err
	}
	res := rewind.Result{Messages: len(sess.Messages), Restored: []string{}, Deleted: []string{}, Kept: []string{}}
	keep := res.Messages
	if scope&rewind.Conversation != 0 {
		if keep, err = cutPoint(sess.Messages, sn); err != nil {
			return rewind.Result{}, err
		}
	}
	if scope&rewind.Code != 0 {
		desc := fmt.Sprintf("before rewind to %s: %s", sn.ID, sn.Prompt)
		if err := ss.rewindCode(ctx, sn, desc, len(sess.Messages), &res); err != nil {
			return res, err
		}
	}
	if scope&rewind.Conversation != 0 && keep < len(sess.Messages) {
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
	if sn.Kind == session.SnapshotRewind || sn.Kind == session.SnapshotCommand {
		return min(sn.Messages, len(msgs)), nil
	}
	if !rewind.PromptAt(msgs, sn.Messages, sn.Prompt) {
		return 0, fmt.Errorf("rewind %s: the conversation no longer has that prompt at message %d (it was compacted or cut since); rewind the code only (--code)",
			sn.ID, sn.Messages+1)
	}
	return sn.Messages, nil
}

// rewindCode snapshots the workspace (recorded as a rewind checkpoint
// described by desc, with messages the conversation's length) and then
// restores sn's files into res.
func (ss snapshots) rewindCode(ctx context.Context, sn session.Snapshot, desc string, messages int, res *rewind.Result) error {
	s := ss.s
	repo, err := s.Runtime().engineRoom().openRepo(ctx, sn.Workspace)
	if err != nil {
		return err
	}
	if !repo.Has(ctx, sn.Commit) {
		return fmt.Errorf("checkpoint %s: its snapshot is not in %s (was the state folder cleared?); nothing was changed", sn.ID, repo.GitDir())
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

// undoSnapshot undoes the last turn of session id (a full id) that
// changed files, with its turn checkpoint: the workspace goes back to the
// newest checkpoint that differs from it, and the checkpoints it passed
// are dropped, so the next undo goes one turn further back; the state
// before the undo is kept as a rewind checkpoint. ok is false when no
// such checkpoint is left newer than the session's per-file checkpoints
// (of earlier versions), which then undo.
func (ss snapshots) undoSnapshot(ctx context.Context, id string) (undone []session.Undone, ok bool, err error) {
	s := ss.s
	turns, err := ss.undoCandidates(ctx, id)
	if err != nil || len(turns) == 0 {
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
	repo, err := s.Runtime().engineRoom().openRepo(ctx, turns[0].Workspace)
	if err != nil {
		return nil, true, err
	}
	tp, err := s.store.TurnPoint(ctx, id)
	if err != nil {
		return nil, true, err
	}
	pre, err := repo.Snapshot(ctx, "before undo")
	if err != nil {
		return nil, true, err
	}
	for _, sn := range turns {
		r, err := repo.Restore(ctx, sn.Commit)
		undone = undoneOf(sn.Workspace, r)
		if err != nil {
			return undone, true, err
		}
		if err := s.store.DeleteSnapshot(ctx, sn.ID); err != nil {
			return undone, true, err
		}
		if len(undone) > 0 {
			_, err = s.store.AddSnapshot(ctx, session.Snapshot{SessionID: id, Turn: tp.Turn, Kind: session.SnapshotRewind,
				Prompt: "before undo of: " + sn.Prompt, Messages: len(sess.Messages), Commit: pre})
			return undone, true, err
		}
	}
	return nil, false, nil
}

// undoCandidates returns session id's turn (and user command) checkpoints newer than its
// last per-file checkpoint, newest first.
func (ss snapshots) undoCandidates(ctx context.Context, id string) ([]session.Snapshot, error) {
	s := ss.s
	rows, err := s.store.Snapshots(ctx, id, "")
	if err != nil {
		return nil, err
	}
	fileTurn, hasFiles, err := s.store.LastFileCheckpointTurn(ctx, id)
	if err != nil {
		return nil, err
	}
	var out []session.Snapshot
	for i := len(rows) - 1; i >= 0; i-- {
		if rows[i].Kind != session.SnapshotTurn && rows[i].Kind != session.SnapshotCommand {
			continue
		}
		if hasFiles && rows[i].Turn < fileTurn {
			break
		}
		out = append(out, rows[i])
	}
	return out, nil
}

// undoneOf lists a restore as absolute paths, sorted.
func undoneOf(ws string, r checkpoint.Restored) []session.Undone {
	var out []session.Undone
	for _, p := range r.Written {
		out = append(out, session.Undone{Path: filepath.Join(ws, filepath.FromSlash(p))})
	}
	for _, p := range r.Deleted {
		out = append(out, session.Undone{Path: filepath.Join(ws, filepath.FromSlash(p)), Deleted: true})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}
