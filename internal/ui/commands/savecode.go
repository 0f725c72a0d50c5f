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

	"github.com/zelvior/aidex/internal/app/toolcall"
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
// answer's code blocks are written to files, the Nth block to the Nth
// FILE, else to the file its fence names (```go main.go). It writes
// through write_file under the permission policy as the user's own action
// (confined to the workspace; deny rules and protected paths refuse),
// after a checkpoint as a turn takes ([app.Session.UserChange]), so it
// may replace existing files and /undo puts them back. Errors: no answer
// or no code block, a block without a file name, a refused write, the
// checkpoint's.
func cmdSaveCode(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	plan, err := saveCodePlan(c.LastAnswer(), strings.Fields(arg))
	if err != nil {
		return Outcome{}, err
	}
	ws := c.Runtime().Workspace
	err = c.live.UserChange(ctx, strings.TrimSpace("/save-code "+arg), func(tc toolcall.Client) error {
		for _, p := range plan {
			abs := p[0]
			if !filepath.IsAbs(abs) {
				abs = filepath.Join(ws, p[0])
			}
			_, statErr := os.Lstat(abs)
			args, _ := json.Marshal(map[string]string{"path": p[0], "content": p[1]})
			res, err := tc.CallTool(ctx, "write_file", args, toolcall.Options{UserAction: true})
			if err != nil {
				return fmt.Errorf("save-code %s: %w", p[0], err)
			}
			if res.Outcome != toolcall.OK {
				return fmt.Errorf("save-code %s: %s", p[0], res.Result.Error)
			}
			how := ""
			if statErr == nil {
				how = ", replaced the old file"
			}
			fmt.Fprintf(out, "saved %s (%d lines%s)\n", p[0], strings.Count(p[1], "\n"), how)
		}
		return nil
	})
	if err != nil {
		return Outcome{}, err
	}
	fmt.Fprintln(out, "/undo puts the files back as they were before /save-code")
	return Outcome{}, nil
}

// saveCodePlan pairs answer's code blocks with file names (names in
// order, else the name each fence gives): [name, content] per block.
func saveCodePlan(answer string, names []string) ([][2]string, error) {
	blocks := codeBlocks(answer)
	if len(blocks) == 0 {
		return nil, errors.New("save-code: the last answer has no code block")
	}
	if len(names) > len(blocks) {
		return nil, fmt.Errorf("save-code: %d file names for %d code blocks", len(names), len(blocks))
	}
	var plan [][2]string
	for i, b := range blocks {
		name := blockPath(b.Info)
		if i < len(names) {
			name = names[i]
		}
		if name == "" {
			return nil, fmt.Errorf("save-code: code block %d (of %d) names no file: give the names in order, /save-code FILE1 FILE2 ...", i+1, len(blocks))
		}
		plan = append(plan, [2]string{name, b.Body})
	}
	return plan, nil
}
