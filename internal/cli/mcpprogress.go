package cli

import (
	"context"
	"fmt"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
)

// session opens the live session of sess (svc.Session), the MCP servers'
// slow start-up, which happens there, shown on out (progressTo).
func (a *cliApp) session(ctx context.Context, svc *app.Service, sess *agent.Conversation, so app.SessionOptions, out renderer) (*app.Session, error) {
	defer a.progressTo(out, sess.ID)()
	return svc.Session(ctx, sess, so)
}

// progress shows a line about work under way before the session runs (an
// MCP server still starting): a notice event on a stream-json output, else
// a line on stderr unless --quiet. Safe from any goroutine.
func (a *cliApp) progress(text string) {
	a.warnMu.Lock()
	defer a.warnMu.Unlock()
	switch {
	case a.progressEvent != nil:
		a.progressEvent(text)
	case !a.flags.quiet:
		fmt.Fprintf(a.proc.Stderr, "aidex: %s\n", text)
	}
}

// progressTo sends progress lines to r as notice events (kind "mcp") of
// session when r prints aidex's stream-json; restore ends it.
func (a *cliApp) progressTo(r renderer, session string) (restore func()) {
	sj, ok := r.(*streamJSON)
	if !ok {
		return func() {}
	}
	a.warnMu.Lock()
	a.progressEvent = func(text string) {
		sj.event(agent.Event{Type: agent.EventNotice, SessionID: session, Text: text, Notice: &agent.NoticeInfo{Kind: agent.NoticeMCP}})
	}
	a.warnMu.Unlock()
	return func() {
		a.warnMu.Lock()
		a.progressEvent = nil
		a.warnMu.Unlock()
	}
}
