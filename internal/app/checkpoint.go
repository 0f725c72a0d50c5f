package app

import (
	"context"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/engine"
	"github.com/zelvior/aidex/internal/app/rewind"
	"github.com/zelvior/aidex/internal/app/toolcall"
	"github.com/zelvior/aidex/internal/checkpoint"
)

// Checkpoints of everything (issue 16): before the first tool call of a
// turn that may change files (a writing tool, not a dry run, or any
// command), the workspace is snapshotted into its shadow git repository
// (package checkpoint) and the snapshot recorded in the session store.
// Front ends (TUI /rewind, line mode /rewind, web Rewind button) and the
// CLI (`aidex checkpoints list`, `aidex rewind`, `aidex undo`) use only
// the API below.

// Checkpoints lists the checkpoints of session id, oldest first ("" for
// every session of the runtime's workspace). Errors: session.ErrNotFound
// for an unknown id; the store's and git's.
func (s *Service) Checkpoints(ctx context.Context, id string) ([]rewind.Checkpoint, error) {
	rows, err := s.store.Snapshots(ctx, id, s.Runtime().Workspace)
	if err != nil || len(rows) == 0 {
		return []rewind.Checkpoint{}, err
	}
	return (snapshots{s}).describe(ctx, rows)
}

// Rewind restores checkpoint cp of session id ("" for the session that
// owns cp) within scope, for a session no live front end holds (the
// CLI). Errors: rewind.ErrUnknownCheckpoint (wrapped, naming the id) for an
// unknown checkpoint; the session's lock error when another aidex runs
// it; rewind.ErrOtherWorkspace (wrapped) for a checkpoint of another
// workspace; the store's and git's.
func (s *Service) Rewind(ctx context.Context, id, cp string, scope rewind.Scope) (rewind.Result, error) {
	sn, err := (snapshots{s}).snapshotOf(ctx, id, cp)
	if err != nil {
		return rewind.Result{}, err
	}
	unlock, err := lockSession(s.lockDir, sn.SessionID)
	if err != nil {
		return rewind.Result{}, err
	}
	defer unlock()
	return (snapshots{s}).rewind(ctx, sn, scope)
}

// Checkpoints lists this live session's checkpoints, oldest first.
func (ls *Session) Checkpoints(ctx context.Context) ([]rewind.Checkpoint, error) {
	return ls.svc.Checkpoints(ctx, ls.ID())
}

// Rewind restores checkpoint cp of this live session within scope and,
// when the scope includes the conversation, reloads the conversation so
// the next Run continues from the cut. Errors: agent.ErrBusy while a run
// is going; as Service.Rewind.
func (ls *Session) Rewind(ctx context.Context, cp string, scope rewind.Scope) (rewind.Result, error) {
	if err := ls.waitLoaded(ctx); err != nil {
		return rewind.Result{}, err
	}
	ls.mu.Lock()
	if ls.running {
		ls.mu.Unlock()
		return rewind.Result{}, agent.ErrBusy
	}
	ls.running = true
	sess := ls.sess
	ls.mu.Unlock()
	defer func() {
		ls.mu.Lock()
		ls.running = false
		ls.mu.Unlock()
	}()
	sn, err := (snapshots{ls.svc}).snapshotOf(ctx, sess.ID, cp)
	if err != nil {
		return rewind.Result{}, err
	}
	unlock, err := lockSession(ls.svc.lockDir, sess.ID)
	if err != nil {
		return rewind.Result{}, err
	}
	defer unlock()
	res, err := (snapshots{ls.svc}).rewind(ctx, sn, scope)
	if scope&rewind.Conversation != 0 {
		if serr := (turnPrep{ls}).syncFromStore(context.WithoutCancel(ctx), sess); serr != nil && err == nil {
			err = serr
		}
		turnPrep{ls}.markSeen(context.WithoutCancel(ctx), sess.ID)
	}
	return res, err
}

// UserChange runs change, a user command's own change to files in this
// live session (command names it in the checkpoint list: "/save-code"),
// with tc, a series of direct tool calls (toolcall.Client; give them
// toolcall.Options.UserAction). Before the first call that may change
// files the workspace is snapshotted, as before a turn, into a checkpoint
// that keeps the conversation as it is; without git each file's earlier
// version is kept in the session's current turn. Either way /undo and
// /rewind restore the files as they were before the command. No run
// starts while change runs. Errors: agent.ErrBusy while a run is going,
// the session's lock error when another aidex runs it, the tools' set-up,
// change's.
func (ls *Session) UserChange(ctx context.Context, command string, change func(tc toolcall.Client) error) error {
	if err := ls.waitLoaded(ctx); err != nil {
		return err
	}
	end, err := ls.begin()
	if err != nil {
		return err
	}
	defer end()
	ls.mu.Lock()
	sess := ls.sess
	ls.mu.Unlock()
	unlock, err := lockSession(ls.svc.lockDir, sess.ID)
	if err != nil {
		return err
	}
	defer unlock()
	rt := ls.svc.Runtime()
	tc, err := rt.newToolClient()
	if err != nil {
		return err
	}
	defer tc.Close()
	if engine.GitAvailable() {
		ws := rt.Workspace
		tc.hook = &engine.TurnHook{Store: ls.svc.store, SessionID: sess.ID, Command: command, Messages: len(sess.Messages),
			Open: func(ctx context.Context) (*checkpoint.Repo, error) { return rt.engineRoom().openRepo(ctx, ws) }}
	} else {
		tc.files = ls.svc.store.Checkpoints(sess.ID)
	}
	return change(tc)
}
