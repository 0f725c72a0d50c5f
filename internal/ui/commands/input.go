package commands

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm"
)

// Prompt is a user's input turned into model input: Parts to send and the
// files that were attached from @path mentions (workspace-relative).
type Prompt struct {
	Parts    []llm.Part
	Attached []string
	// Skipped are @mentions that named no readable file (left as text).
	Skipped []string
	// Notes say what was cut from an attachment, or why one could not be
	// attached or seen (Controller.BuildPrompt).
	Notes []string
}

// BuildPrompt turns text into model input. Every @path word naming a file
// in the workspace (relative to it, or absolute inside it) attaches the
// file's text after the prompt as <file path="...">…</file> (files over
// 256 KB or binary files are not attached and are reported in Skipped).
func BuildPrompt(workspace, text string) Prompt {
	var p Prompt
	var files strings.Builder
	seen := map[string]bool{}
	for _, w := range strings.Fields(text) {
		if !strings.HasPrefix(w, "@") || len(w) < 2 {
			continue
		}
		rel := strings.TrimRight(w[1:], ".,;:!?)\"'")
		if seen[rel] {
			continue
		}
		seen[rel] = true
		data, ok := readAttachment(workspace, rel)
		if !ok {
			p.Skipped = append(p.Skipped, rel)
			continue
		}
		fmt.Fprintf(&files, "\n\n<file path=%q>\n%s\n</file>", rel, strings.TrimRight(string(data), "\n"))
		p.Attached = append(p.Attached, rel)
	}
	p.Parts = []llm.Part{{Type: llm.PartText, Text: text + files.String()}}
	return p
}

func readAttachment(workspace, rel string) ([]byte, bool) {
	path := rel
	if !filepath.IsAbs(path) {
		path = filepath.Join(workspace, rel)
	}
	path = filepath.Clean(path)
	if r, err := filepath.Rel(workspace, path); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return nil, false
	}
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() || st.Size() > maxLoad {
		return nil, false
	}
	data, err := os.ReadFile(path)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return nil, false
	}
	return data, true
}

// ShellResult is the outcome of a user's !command.
type ShellResult struct {
	Command  string
	Output   string // stdout and stderr interleaved, cut to 32 KB
	ExitCode int    // -1 when the command could not start or was stopped
	Duration time.Duration
	Err      error
}

// maxShellOutput bounds the output kept from a !command, in bytes.
const maxShellOutput = 32 << 10

// RunShell runs command (the user's own !command: no permission policy
// applies) in the session's command shell (Runtime.CommandShell: the
// shell the model's commands run in) in rt's workspace, until it ends or
// ctx is done (then the process is killed). Its output joins the
// conversation, so it runs without credentials in its environment, as
// rt's tools' commands do (Runtime.CommandEnviron; command_env_allow
// passes a variable through).
func RunShell(ctx context.Context, rt *app.Runtime, command string) ShellResult {
	start := time.Now()
	sh, err := rt.CommandShell()
	if err != nil {
		return ShellResult{Command: command, ExitCode: -1, Err: err}
	}
	argv := sh.Argv(command)
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = rt.Workspace, rt.CommandEnviron()
	cmd.WaitDelay = time.Second
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	err = cmd.Run()
	res := ShellResult{Command: command, Duration: time.Since(start), ExitCode: 0}
	out := buf.Bytes()
	if len(out) > maxShellOutput {
		out = append(out[:maxShellOutput:maxShellOutput], []byte("\n… (output cut)")...)
	}
	res.Output = strings.TrimRight(string(out), "\n")
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee) && ctx.Err() == nil:
		res.ExitCode = ee.ExitCode()
	default:
		res.ExitCode, res.Err = -1, err
		if ctx.Err() != nil {
			res.Err = errors.New("stopped")
		}
	}
	return res
}

// ContextText is how a !command's result is added to the conversation.
func (r ShellResult) ContextText() string {
	status := fmt.Sprintf("exit code %d", r.ExitCode)
	if r.Err != nil {
		status = r.Err.Error()
	}
	return fmt.Sprintf("I ran this shell command myself (%s):\n$ %s\n%s", status, r.Command, r.Output)
}

// History is the input history of one workspace, kept as JSON lines in a
// file under the state directory. Entries are oldest first.
type History struct {
	Path    string
	Entries []string
	// Max is the number of entries kept (0: 500).
	Max int
}

// HistoryPath returns the history file of workspace under stateDir:
// STATE/history/<hash of the workspace path>.jsonl.
func HistoryPath(stateDir, workspace string) string {
	sum := sha256.Sum256([]byte(workspace))
	return filepath.Join(stateDir, "history", hex.EncodeToString(sum[:8])+".jsonl")
}

// LoadHistory reads the history file at path; a missing file is an empty
// history, unreadable lines are skipped.
func LoadHistory(path string) *History {
	h := &History{Path: path}
	data, err := os.ReadFile(path)
	if err != nil {
		return h
	}
	for _, line := range bytes.Split(data, []byte("\n")) {
		var s string
		if len(line) > 0 && json.Unmarshal(line, &s) == nil && s != "" {
			h.Entries = append(h.Entries, s)
		}
	}
	return h
}

// Add appends entry (unless it repeats the last one) and saves the file.
// Errors are I/O failures.
func (h *History) Add(entry string) error {
	entry = strings.TrimSpace(entry)
	if entry == "" || (len(h.Entries) > 0 && h.Entries[len(h.Entries)-1] == entry) {
		return nil
	}
	h.Entries = append(h.Entries, entry)
	limit := h.Max
	if limit <= 0 {
		limit = 500
	}
	if len(h.Entries) > limit {
		h.Entries = slices.Clone(h.Entries[len(h.Entries)-limit:])
	}
	if h.Path == "" {
		return nil
	}
	var buf bytes.Buffer
	for _, e := range h.Entries {
		b, _ := json.Marshal(e)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(h.Path), 0o700); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	tmp := h.Path + ".tmp"
	if err := os.WriteFile(tmp, buf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	if err := os.Rename(tmp, h.Path); err != nil {
		return fmt.Errorf("history: %w", err)
	}
	return nil
}

// skipDirs are folders file completion never descends into.
var skipDirs = map[string]bool{".git": true, "node_modules": true, ".venv": true, "venv": true,
	"__pycache__": true, "target": true, "dist": true, "build": true, ".idea": true, ".cache": true}

// ListFiles returns up to limit workspace files (slash-separated, relative)
// for @ completion, skipping hidden and build folders.
func ListFiles(workspace string, limit int) []string {
	var out []string
	_ = filepath.WalkDir(workspace, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		name := d.Name()
		if d.IsDir() {
			if path != workspace && (skipDirs[name] || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if rel, err := filepath.Rel(workspace, path); err == nil {
			out = append(out, filepath.ToSlash(rel))
		}
		if len(out) >= limit {
			return filepath.SkipAll
		}
		return nil
	})
	return out
}

// MatchFiles returns up to n files whose path contains query (case
// insensitive), those whose base name starts with it first.
func MatchFiles(files []string, query string, n int) []string {
	q := strings.ToLower(query)
	var first, rest []string
	for _, f := range files {
		lf := strings.ToLower(f)
		switch {
		case strings.HasPrefix(strings.ToLower(filepath.Base(f)), q) || strings.HasPrefix(lf, q):
			first = append(first, f)
		case strings.Contains(lf, q):
			rest = append(rest, f)
		}
	}
	out := append(first, rest...)
	if len(out) > n {
		out = out[:n]
	}
	return out
}

// pathArg returns a tool call's path argument ("" when none).
func pathArg(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range []string{"path", "file_path", "file"} {
		if s, ok := m[k].(string); ok {
			return s
		}
	}
	return ""
}
