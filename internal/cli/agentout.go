package cli

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ui/format"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// dryRunPrefix starts the output of a file tool's dry run
// (--agent-writes dry-run): the diff follows.
const dryRunPrefix = "[dry run: nothing was written]"

// stripMarkers removes agent mode's finish markers (%%DONE%%,
// %%COMPLETED%%, %%COMPLETE%%) from b: the final answer and --raw do not
// show them (--agent-output full does).
func stripMarkers(b []byte) []byte {
	for _, m := range app.FinishMarkers() {
		b = bytes.ReplaceAll(b, []byte(m), nil)
	}
	return b
}

// collapseBlank drops leading blank lines and trailing space and turns
// runs of blank lines (lines of only spaces or tabs) into one, as agent
// mode's final and none outputs print.
func collapseBlank(s string) string {
	var out []string
	blank := true // drops leading blank lines
	for _, line := range strings.Split(strings.TrimRight(s, " \t\r\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			if !blank {
				out = append(out, "")
			}
			blank = true
			continue
		}
		out = append(out, line)
		blank = false
	}
	return strings.Join(out, "\n")
}

// turnLine separates agent-mode turns in --agent-output full: a rule
// naming the turn on a terminal, a blank line otherwise.
func turnLine(turn, steps int, tty bool) string {
	if !tty {
		return "\n"
	}
	return fmt.Sprintf("── turn %d/%d ──\n", turn, steps)
}

// requestDump prints, for --verbose in agent mode, the system prompt once
// and before each turn the messages the provider gets that were not
// shown yet (the assistant's own text is on stdout already: only its tool
// calls are listed).
type requestDump struct {
	mu         sync.Mutex
	w          io.Writer
	turn       int
	systemDone bool
	seen       int
}

func newRequestDump(w io.Writer) *requestDump { return &requestDump{w: w} }

// dump prints req's new parts; it is an app.AgentMode BeforeRequest hook.
func (d *requestDump) dump(req *llm.Request) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.turn++
	var b strings.Builder
	if !d.systemDone {
		d.systemDone = true
		b.WriteString("aidex: ── system prompt ──\n" + strings.TrimRight(req.System, "\n") + "\n")
	}
	if d.seen > len(req.Messages) { // compaction rewrote the history
		d.seen = 0
	}
	fmt.Fprintf(&b, "aidex: ── messages before turn %d ──\n", d.turn)
	for _, m := range req.Messages[d.seen:] {
		writeMessage(&b, m)
	}
	d.seen = len(req.Messages)
	fmt.Fprint(d.w, termsafe.Clean(b.String()))
}

// writeMessage writes one provider-visible message for the verbose dump.
func writeMessage(b *strings.Builder, m llm.Message) {
	for _, p := range m.Parts {
		switch {
		case p.Type == llm.PartText && m.Role == llm.RoleAssistant:
			fmt.Fprintf(b, "[assistant] (text shown above, %d characters)\n", len(p.Text))
		case p.Type == llm.PartText:
			fmt.Fprintf(b, "[%s] %s\n", m.Role, p.Text)
		case p.Type == llm.PartImage:
			fmt.Fprintf(b, "[%s] (image %s)\n", m.Role, p.MIMEType)
		case p.Type == llm.PartToolCall && p.ToolCall != nil:
			fmt.Fprintf(b, "[assistant] call %s %s\n", p.ToolCall.Name, format.ArgSummary(p.ToolCall.Arguments))
		case p.Type == llm.PartToolResult && p.ToolResult != nil:
			fmt.Fprintf(b, "[tool %s] %s\n", p.ToolResult.Name, p.ToolResult.Content)
		}
	}
}

// stderrOf is where a headless run rendered by r writes extra stderr
// lines: above r's spinner line when it draws one.
func stderrOf(r renderer, stderr io.Writer) io.Writer {
	if p, ok := r.(*progress); ok {
		return aboveWriter{p: p, w: stderr}
	}
	return stderr
}

// cut shortens s to at most n characters, saying how much was left out.
func cut(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + fmt.Sprintf("… (%d more characters)", len(r)-n)
}
