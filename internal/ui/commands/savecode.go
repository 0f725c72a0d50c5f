package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/zelvior/aidex/internal/app"
)

// codeBlock is one fenced code block of an answer: Info is the text after
// the opening fence ("go", "python main.py"), Body the lines inside.
type codeBlock struct {
	Info string
	Body string
}

// codeBlocks returns the fenced code blocks (``` or ~~~) of markdown
// text, in order; an unclosed block runs to the end.
func codeBlocks(text string) []codeBlock {
	var out []codeBlock
	var cur *codeBlock
	var fence string
	var body []string
	for _, line := range strings.Split(text, "\n") {
		t := strings.TrimSpace(line)
		switch {
		case cur == nil && (strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")):
			fence = t[:3]
			cur = &codeBlock{Info: strings.TrimSpace(strings.TrimLeft(t, fence[:1]))}
			body = nil
		case cur != nil && strings.HasPrefix(t, fence) && strings.Trim(t, fence[:1]) == "":
			cur.Body = strings.Join(body, "\n") + "\n"
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			body = append(body, line)
		}
	}
	if cur != nil && len(body) > 0 {
		cur.Body = strings.Join(body, "\n") + "\n"
		out = append(out, *cur)
	}
	return out
}

// blockPath is the file name a block's info string names ("go main.go",
// "python title=app.py", "src/x.ts"), or "".
func blockPath(info string) string {
	for _, w := range strings.Fields(info) {
		w = strings.Trim(strings.TrimPrefix(strings.TrimPrefix(w, "title="), "file="), `"'`)
		if strings.ContainsAny(w, "./") && !strings.HasPrefix(w, "{") {
			return w
		}
	}
	return ""
}

// cmdSaveCode is /save-code [FILE...] (iptic-memex's save_code): the last
// answer's code blocks are written to new files, the Nth block to the
// Nth FILE, else to the file its fence names (```go main.go). It writes
// through write_file under the permission policy as the user's own action
// (confined to the workspace; deny rules and protected paths refuse), and
// only files that do not exist yet: changing a file is the model's work,
// checkpointed for /undo. Errors: no answer or no code block, a block
// without a file name, an existing file, a refused write.
func cmdSaveCode(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	blocks := codeBlocks(c.LastAnswer())
	if len(blocks) == 0 {
		return Outcome{}, errors.New("save-code: the last answer has no code block")
	}
	names := strings.Fields(arg)
	if len(names) > len(blocks) {
		return Outcome{}, fmt.Errorf("save-code: %d file names for %d code blocks", len(names), len(blocks))
	}
	ws := c.Runtime().Workspace
	var plan [][2]string
	for i, b := range blocks {
		name := blockPath(b.Info)
		if i < len(names) {
			name = names[i]
		}
		if name == "" {
			return Outcome{}, fmt.Errorf("save-code: code block %d (of %d) names no file: give the names in order, /save-code FILE1 FILE2 ...", i+1, len(blocks))
		}
		abs := name
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(ws, name)
		}
		if _, err := os.Lstat(abs); err == nil {
			return Outcome{}, fmt.Errorf("save-code: %s exists; /save-code writes new files only (ask the model to change it: its edits are checkpointed for /undo)", name)
		}
		plan = append(plan, [2]string{name, b.Body})
	}
	for _, p := range plan {
		args, _ := json.Marshal(map[string]string{"path": p[0], "content": p[1]})
		res, err := c.Runtime().CallTool(ctx, "write_file", args, app.CallOptions{UserAction: true})
		if err != nil {
			return Outcome{}, fmt.Errorf("save-code %s: %w", p[0], err)
		}
		if res.Outcome != app.OutcomeOK {
			return Outcome{}, fmt.Errorf("save-code %s: %s", p[0], res.Result.Error)
		}
		fmt.Fprintf(out, "saved %s (%d lines)\n", p[0], strings.Count(p[1], "\n"))
	}
	return Outcome{}, nil
}
