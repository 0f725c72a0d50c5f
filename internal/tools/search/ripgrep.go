package search

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
	"github.com/zelvior/aidex/internal/tools/walk"
)

// Ripgrep is the GrepBackend that runs `rg --json` (ripgrep 11 or later)
// and parses its JSON Lines output (format:
// https://docs.rs/grep-printer/latest/grep_printer/struct.JSON.html).
// ripgrep's own config files and global ignore files are disabled so the
// results match GoGrep's.
type Ripgrep struct {
	// Path is the rg executable.
	Path string
}

// Name returns "ripgrep".
func (Ripgrep) Name() string { return "ripgrep" }

// args builds the rg command line; rg runs in dir and searches target.
func (rg Ripgrep) args(req tools.GrepRequest) (dir, target string, args []string) {
	args = []string{"--json", "--no-config", "--hidden", "--no-ignore-dot", "--no-ignore-global",
		"--no-ignore-exclude", "--no-ignore-parent", "--no-require-git",
		"--max-filesize", strconv.Itoa(tools.MaxReadBytes), "-g", "!.git",
		"--crlf"} // $ matches before CRLF, as GoGrep's crlfPattern
	// -g globs would override .gitignore (ripgrep gives them precedence),
	// so a plain name glob becomes a file type, which does not; other
	// include globs are applied to rg's output (see parseRg).
	if inc := req.Include; inc != "" && !strings.ContainsAny(inc, "/!") {
		args = append(args, "--type-add", "aidexinclude:"+inc, "-t", "aidexinclude")
	}
	if req.IgnoreCase {
		args = append(args, "-i")
	}
	if req.Context > 0 {
		args = append(args, "-C", strconv.Itoa(req.Context))
	}
	dir, target = req.Root, "."
	if fi, err := os.Stat(req.Root); err == nil && !fi.IsDir() {
		dir, target = filepath.Dir(req.Root), filepath.Base(req.Root)
	}
	return dir, target, append(args, "-e", req.Pattern, "--", target)
}

// rgMessage is one line of `rg --json` output; text fields arrive as
// {"text": "..."} or, when not valid UTF-8, {"bytes": "<base64>"}.
type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path       rgText `json:"path"`
		Lines      rgText `json:"lines"`
		LineNumber int    `json:"line_number"`
	} `json:"data"`
}

type rgText struct {
	Text  *string `json:"text"`
	Bytes string  `json:"bytes"`
}

// String returns the text, decoding base64 bytes when needed.
func (t rgText) String() string {
	if t.Text != nil {
		return *t.Text
	}
	b, _ := base64.StdEncoding.DecodeString(t.Bytes)
	return string(b)
}

// Search implements GrepBackend. An rg failure with no results (exit
// status 2, e.g. a regex ripgrep rejects) is an error.
func (rg Ripgrep) Search(ctx context.Context, req tools.GrepRequest) (tools.GrepResult, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	dir, _, args := rg.args(req)
	cmd := exec.CommandContext(ctx, rg.Path, args...)
	cmd.Dir, cmd.Env = dir, proc.ChildEnviron(os.Environ(), nil, req.EnvPolicy)
	cmd.WaitDelay = 2 * time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return tools.GrepResult{}, fmt.Errorf("rg: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return tools.GrepResult{}, fmt.Errorf("start rg: %w", err)
	}
	var inc *walk.Glob
	if req.Include != "" {
		var ok bool
		if inc, ok = walk.NewGlob(req.Include); !ok {
			return tools.GrepResult{}, fmt.Errorf("invalid include glob %q", req.Include)
		}
	}
	res, perr := parseRg(stdout, dir, req.Limit, inc)
	if res.Truncated || perr != nil {
		cancel()
		_, _ = io.Copy(io.Discard, stdout)
	}
	werr := cmd.Wait()
	if perr != nil {
		return tools.GrepResult{}, perr
	}
	var ee *exec.ExitError
	if werr != nil && !res.Truncated && ctx.Err() == nil {
		if !errors.As(werr, &ee) || (ee.ExitCode() != 1 && res.Matches == 0) {
			return tools.GrepResult{}, fmt.Errorf("rg: %v: %s", werr, tools.FirstLines(stderr.String(), 3))
		}
	}
	if werr != nil && ctx.Err() != nil && !res.Truncated {
		return tools.GrepResult{}, ctx.Err()
	}
	sortFiles(&res)
	return res, nil
}

// parseRg reads rg's JSON messages, keeping files whose path relative to
// dir matches inc (nil: all), stopping once limit matching lines were read
// (Truncated).
func parseRg(r io.Reader, dir string, limit int, inc *walk.Glob) (tools.GrepResult, error) {
	var res tools.GrepResult
	files := map[string]int{} // path -> index in res.Files
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m rgMessage
			if jerr := json.Unmarshal(line, &m); jerr != nil {
				return res, fmt.Errorf("rg: unexpected output %q: %w", tools.FirstLines(string(line), 1), jerr)
			}
			rel := strings.TrimPrefix(filepath.ToSlash(m.Data.Path.String()), "./")
			if (m.Type == "match" || m.Type == "context") && inc.Match(rel) {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				i, ok := files[p]
				if !ok {
					i = len(res.Files)
					files[p] = i
					res.Files = append(res.Files, tools.GrepFile{Path: p})
				}
				text := tools.TrimEOL(m.Data.Lines.String())
				res.Files[i].Lines = append(res.Files[i].Lines, tools.GrepLine{Num: m.Data.LineNumber, Text: text, Match: m.Type == "match"})
				if m.Type == "match" {
					res.Matches++
					if limit > 0 && res.Matches >= limit {
						res.Truncated = true
						return res, nil
					}
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return res, fmt.Errorf("read rg output: %w", err)
		}
	}
	for i := range res.Files {
		slices.SortStableFunc(res.Files[i].Lines, func(a, b tools.GrepLine) int { return a.Num - b.Num })
	}
	return res, nil
}
