package dist

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/zelvior/aidex/internal/ralph"
)

// handle works one delivered task message to its end: it refuses a bad
// message (terminated, never redelivered), reports the start, keeps the
// message in progress while it works, and acks after the outcome is
// published. A failure of its own (git, the repository) gives the task
// back for another delivery, and fails it on the last one.
func (w *Worker) handle(ctx context.Context, msg jetstream.Msg) {
	delivery := 1
	if meta, err := msg.Metadata(); err == nil {
		delivery = int(meta.NumDelivered)
	}
	m, err := ParseTask(msg.Data())
	if err != nil {
		w.reject(msg, delivery, err)
		return
	}
	if reason := w.refuse(m); reason != "" {
		out := ralph.Outcome{Status: ralph.StatusFailed, Reason: "refused", Summary: reason, Attempts: 1, Worker: w.o.ID}
		_ = w.publish(ResultMsg{Run: m.Run, TaskID: m.ID, Attempt: m.Attempt, Kind: KindOutcome, Delivery: delivery, Outcome: &out}, resultID(m, "outcome"))
		_ = msg.Term()
		return
	}
	w.setTask(m.ID, true)
	defer w.setTask(m.ID, false)
	if err := w.publish(ResultMsg{Run: m.Run, TaskID: m.ID, Attempt: m.Attempt, Kind: KindStart, Delivery: delivery}, resultID(m, fmt.Sprintf("start-%d", delivery))); err != nil {
		_ = msg.NakWithDelay(time.Second)
		return
	}
	w.mu.Lock()
	every := w.ackWait / 3
	w.mu.Unlock()
	stop := keepInProgress(ctx, msg, every)
	out, changed, err := w.work(ctx, m)
	stop()
	switch {
	case ctx.Err() != nil || (err == nil && out.Status == ralph.StatusPending):
		// Interrupted: the task goes back to the queue as it was.
		_ = w.publish(ResultMsg{Run: m.Run, TaskID: m.ID, Attempt: m.Attempt, Kind: KindRetry, Delivery: delivery,
			Note: "the worker was interrupted"}, resultID(m, fmt.Sprintf("retry-%d", delivery)))
		_ = msg.Nak()
	case err != nil && delivery < MaxDeliver:
		_ = w.publish(ResultMsg{Run: m.Run, TaskID: m.ID, Attempt: m.Attempt, Kind: KindRetry, Delivery: delivery,
			Note: err.Error()}, resultID(m, fmt.Sprintf("retry-%d", delivery)))
		_ = msg.NakWithDelay(time.Second)
	default:
		if err != nil {
			out = ralph.Outcome{Status: ralph.StatusFailed, Reason: "worker_error", Attempts: 1,
				Summary: fmt.Sprintf("failed on each of %d deliveries; last: %v", delivery, err)}
		}
		out.Worker = w.o.ID
		res := ResultMsg{Run: m.Run, TaskID: m.ID, Attempt: m.Attempt, Kind: KindOutcome, Delivery: delivery, Outcome: &out, Changed: changed}
		if err := w.publish(res, resultID(m, "outcome")); err != nil {
			_ = msg.NakWithDelay(time.Second)
			return
		}
		actx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		_ = msg.DoubleAck(actx)
		cancel()
	}
}

// resultID is a result's JetStream message id (duplicates within the
// stream's window are dropped).
func resultID(m TaskMsg, what string) string {
	return fmt.Sprintf("%s.%s.%d.%s", m.Run, m.ID, m.Attempt, what)
}

// reject terminates a message that is not a valid task, reporting it
// when the message names a run and a task.
func (w *Worker) reject(msg jetstream.Msg, delivery int, why error) {
	var loose struct {
		Run string `json:"run"`
		ID  string `json:"id"`
	}
	_ = json.Unmarshal(msg.Data(), &loose)
	if validRunID(loose.Run) && validTaskID(loose.ID) {
		_ = w.publish(ResultMsg{Run: loose.Run, TaskID: loose.ID, Kind: KindRejected, Delivery: delivery,
			Note: "refused the task message: " + why.Error()}, loose.Run+"."+loose.ID+".rejected")
	}
	w.o.Emit(ralph.Event{Type: ralph.EventRedelivered, TaskID: loose.ID, Worker: w.o.ID, Note: "refused a task message: " + why.Error()})
	_ = msg.Term()
}

// refuse says why this worker will not work a valid task ("" when it
// will): a remote it does not allow, a verify command it does not run.
func (w *Worker) refuse(m TaskMsg) string {
	if w.o.Repo == "" {
		if m.Remote == "" {
			return "the task names no repository (--remote on the coordinator) for this remote worker"
		}
		if err := checkRemoteURL(m.Remote); err != nil {
			return "remote not allowed here: " + err.Error()
		}
		if !AllowRemote(m.Remote, w.o.AllowRemotes) {
			return fmt.Sprintf("remote %s not allowed here (the worker's --allow-remote patterns do not match it)", m.Remote)
		}
	}
	if v := strings.TrimSpace(m.Verify); v != "" && v != strings.TrimSpace(w.o.Run.Verify) && !w.o.Executor.VerifyAllowed(v) {
		return ErrVerifyNotAllowed + ": " + v
	}
	return ""
}

// keepInProgress tells the server the task is still worked on, a few
// times per ack wait, until the returned func is called.
func keepInProgress(ctx context.Context, msg jetstream.Msg, every time.Duration) func() {
	if every <= 0 {
		every = time.Second
	}
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
				_ = msg.InProgress()
			}
		}
	}()
	return func() { close(done) }
}

// work prepares the repository and the worktree, runs the agent there,
// commits a done task and pushes it (remote workers). changed is the
// lines the commit changes.
func (w *Worker) work(ctx context.Context, m TaskMsg) (ralph.Outcome, int, error) {
	task := ralph.Task{ID: m.ID, Title: m.Title, Description: m.Description, AcceptanceCriteria: m.AcceptanceCriteria}
	ro := w.o.Run
	ro.Verify, ro.TaskIDs, ro.MaxIterations = strings.TrimSpace(m.Verify), nil, 0
	emit := func(ev ralph.Event) {
		ev.Worker = w.o.ID
		w.o.Emit(ev)
	}
	if w.o.NoWorktree {
		dir := w.o.Repo
		if dir == "" {
			dir = w.o.Workspace
		}
		out, err := ralph.WorkTask(ctx, w.o.Executor.Backend(dir), task, ro, emit)
		return out, 0, err
	}
	repo, key, err := w.repoFor(ctx, m)
	if err != nil {
		return ralph.Outcome{}, 0, err
	}
	wt, branch := w.worktreeDir(key, m), branchName(m.ID, m.Attempt)
	lock := w.o.RepoLock
	lock.Lock()
	err = newWorktree(ctx, repo, wt, branch, m.Base)
	lock.Unlock()
	if err != nil {
		return ralph.Outcome{}, 0, err
	}
	defer func() {
		lock.Lock()
		removeWorktree(context.Background(), repo, wt)
		lock.Unlock()
	}()
	out, err := ralph.WorkTask(ctx, w.o.Executor.Backend(wt), task, ro, emit)
	if err != nil || out.Status != ralph.StatusDone {
		lock.Lock()
		_, _ = git(context.Background(), repo, "branch", "-D", branch)
		lock.Unlock()
		return out, 0, err
	}
	lock.Lock()
	commit, changed, err := commitAll(ctx, wt, commitMessage(m.Title, out.Summary))
	lock.Unlock()
	if err != nil {
		return out, 0, err
	}
	if w.o.Repo == "" {
		if _, err := git(ctx, wt, "push", "--force", "--quiet", "origin", "HEAD:refs/heads/"+branch); err != nil {
			return out, 0, err
		}
	}
	out.Branch, out.Commit = branch, commit
	return out, changed, nil
}

func commitMessage(title, summary string) string {
	msg := strings.TrimSpace(title)
	if s := strings.TrimSpace(summary); s != "" {
		msg += "\n\n" + s
	}
	return msg + "\n"
}

// repoFor returns the repository to make the task's worktree in and the
// key of its worktree folder: the shared one for in-process workers; for
// a remote worker a bare clone of the task's remote under
// Workspace/repos, fetched until it has the base commit.
func (w *Worker) repoFor(ctx context.Context, m TaskMsg) (string, string, error) {
	if w.o.Repo != "" {
		return w.o.Repo, w.o.Repo, nil
	}
	w.repos.Lock()
	defer w.repos.Unlock()
	dir := filepath.Join(w.o.Workspace, "repos", RepoHash(m.Remote))
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
			return "", "", fmt.Errorf("clone folder: %w", err)
		}
		if _, err := git(ctx, filepath.Dir(dir), "clone", "--bare", "--quiet", "--", m.Remote, dir); err != nil {
			return "", "", err
		}
	}
	if _, err := git(ctx, dir, "cat-file", "-e", m.Base+"^{commit}"); err != nil {
		if _, err := git(ctx, dir, "fetch", "--quiet", "origin", m.Base); err != nil {
			return "", "", fmt.Errorf("fetch the task's base commit %s from %s: %w", m.Base, m.Remote, err)
		}
	}
	return dir, m.Remote, nil
}
