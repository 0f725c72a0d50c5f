package app

import (
	"context"
	"sync/atomic"

	"github.com/zelvior/aidex/internal/tools/git"
)

// gitPrefetch is the workspace's git summary (the system prompt's git
// line) computed in the background while the service starts, so that
// `git config` and `git status` (~10 ms each) run while the session store
// opens instead of after it (start-up, issue 21). The first system prompt
// for the same workspace takes it; later prompts run git again, since the
// repository may have changed.
type gitPrefetch struct {
	workspace string
	cancel    context.CancelFunc
	done      chan struct{} // closed when line is set
	line      string
	taken     atomic.Bool
}

// startGitPrefetch starts computing rt's git summary in the background.
// Stop it with stop (the Service does on Close).
func startGitPrefetch(ctx context.Context, rt *Runtime) *gitPrefetch {
	ctx, cancel := context.WithCancel(ctx)
	p := &gitPrefetch{workspace: rt.Workspace, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		p.line = git.Summary(ctx, rt.Workspace, rt.envPolicy)
	}()
	return p
}

// take returns the prefetched line for workspace once: ok is false when it
// was taken already, is for another workspace, or ctx ended first.
func (p *gitPrefetch) take(ctx context.Context, workspace string) (line string, ok bool) {
	if p == nil || p.workspace != workspace || !p.taken.CompareAndSwap(false, true) {
		return "", false
	}
	select {
	case <-p.done:
		return p.line, true
	case <-ctx.Done():
		return "", false
	}
}

// stop cancels the prefetch and waits for its git to end.
func (p *gitPrefetch) stop() {
	if p == nil {
		return
	}
	p.cancel()
	<-p.done
}

// gitSummary is the system prompt's git line for rt's workspace: the
// prefetched one the first time, else git's answer now.
func (rt engineRoom) gitSummary(ctx context.Context) string {
	if line, ok := rt.gitPrefetch.take(ctx, rt.Workspace); ok {
		return line
	}
	return git.Summary(ctx, rt.Workspace, rt.envPolicy)
}
