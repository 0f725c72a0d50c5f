package cli

import (
	"fmt"
	"io"
	"sync"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/streamjson"
)

// claudeOut renders a run in Claude Code's dialect (--stream-dialect
// claude): with --output-format stream-json its messages, one a line
// (streamjson.ClaudeWriter), with --output-format json only the result
// line, as claude -p prints them.
type claudeOut struct {
	out        io.Writer
	stderr     io.Writer
	resultOnly bool

	mu sync.Mutex
	cw *streamjson.ClaudeWriter
}

func newClaudeOut(out, stderr io.Writer, resultOnly bool) *claudeOut {
	return &claudeOut{out: out, stderr: stderr, resultOnly: resultOnly}
}

// start sets what the system/init line tells, from the live session:
// the workspace, model, tools offered and permission mode.
func (c *claudeOut) start(live *app.Session, rt *app.Runtime) {
	init := streamjson.ClaudeInit{SessionID: live.ID(), CWD: rt.Workspace, Model: rt.Model, PermissionMode: rt.Config.PermissionMode}
	if eng := live.Engine(); eng != nil {
		for _, t := range eng.Offered() {
			init.Tools = append(init.Tools, t.Name)
		}
	}
	init.ResultOnly = c.resultOnly
	c.mu.Lock()
	c.cw = streamjson.NewClaudeWriter(c.out, init, nil)
	c.mu.Unlock()
}

func (c *claudeOut) writer() *streamjson.ClaudeWriter {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cw == nil {
		c.cw = streamjson.NewClaudeWriter(c.out, streamjson.ClaudeInit{ResultOnly: c.resultOnly}, nil)
	}
	return c.cw
}

func (c *claudeOut) event(e agent.Event) { c.writer().Event(e) }

// finish writes the result line of the run.
func (c *claudeOut) finish(d *agent.DoneInfo, runErr error) error {
	result := ""
	if d != nil && d.StopReason != agent.StopLoop {
		result = string(stripMarkers([]byte(d.Result)))
	} else if d == nil && runErr != nil {
		result = runErr.Error()
	}
	c.writer().Result(d, result, runErr)
	return nil
}

// inputError reports a stdin line aidex skipped on stderr: Claude's
// dialect has no line for it.
func (c *claudeOut) inputError(err error) {
	fmt.Fprintf(c.stderr, "aidex: warning: stream-json input: %v\n", err)
}

// claude reports whether the run speaks Claude Code's dialect.
func (f *runFlags) claude() bool {
	d, _ := streamjson.ParseDialect(f.dialect)
	return d == streamjson.DialectClaude
}

// checkDialect validates --stream-dialect: aidex or claude, claude only
// with --output-format stream-json or json (and not with --raw).
func checkDialect(f *runFlags) error {
	d, err := streamjson.ParseDialect(f.dialect)
	switch {
	case err != nil:
		return usageErr("--stream-dialect: %v", err)
	case d != streamjson.DialectClaude:
		return nil
	case outputFormat(f.outputFormat) != formatStreamJSON && outputFormat(f.outputFormat) != formatJSON:
		return usageErr("--stream-dialect claude shapes --output-format stream-json or json; add one of them")
	case f.raw:
		return usageErr("--raw prints the provider's raw response; it cannot be combined with --stream-dialect claude")
	}
	return nil
}
