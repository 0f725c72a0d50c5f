package agent

import (
	"context"
	"fmt"
	"time"

	"github.com/zelvior/aidex/internal/llm"
)

// timeNote tells the model the run's time limit and the time left
// (Harness.TimeNotes, a run whose ctx has a deadline): a status note on
// the newest message of req only, so the system prompt and the earlier
// messages stay byte-identical from request to request (the provider's
// prompt cache keeps them).
func (r *run) timeNote(ctx context.Context, req *llm.Request) {
	if !r.cfg.Harness.TimeNotes {
		return
	}
	deadline, ok := ctx.Deadline()
	if !ok {
		return
	}
	now := r.e.Now()
	limit := deadline.Sub(r.started).Round(time.Second)
	left := max(deadline.Sub(now), 0).Round(time.Second)
	req.Messages = withStatus(req.Messages, fmt.Sprintf("<status>Time limit: %s for this run; %s left. "+
		"Plan the remaining work to finish, and check it, in time.</status>", limit, left))
}
