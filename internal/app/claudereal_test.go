package app

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/sharedtest"
	"github.com/zelvior/aidex/internal/skills"
	"github.com/zelvior/aidex/internal/slashcmd"
	"github.com/zelvior/aidex/internal/subagent"
)

// copyInto copies the folder src into dst and returns the files copied
// (relative paths).
func copyInto(t *testing.T, src, dst string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if e.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, rel)
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	require.NoError(t, err)
	return files
}

// realRecorder is the scripted model of TestClaudeRealContent: what each
// run and subagent got.
type realRecorder struct {
	mu       sync.Mutex
	children map[string]subRequest // agent name → its first request
	results  map[string]string     // the parent's first user text → the tool result it got
	prompts  []string              // every first user text
}

func (r *realRecorder) route(req subRequest) llmtest.Turn {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.prompts = append(r.prompts, req.FirstUser)
	switch {
	case strings.HasPrefix(req.FirstUser, "child task for "):
		r.children[strings.TrimPrefix(req.FirstUser, "child task for ")] = req
		return llmtest.Turn{Text: "child done"}
	case len(req.Results) > 0:
		r.results[req.FirstUser] = req.Results[0]
		return llmtest.Turn{Text: "done"}
	case strings.HasPrefix(req.FirstUser, "load skill "):
		args, _ := json.Marshal(map[string]string{"name": strings.TrimPrefix(req.FirstUser, "load skill ")})
		return llmtest.Turn{Calls: []llmtest.Call{{Name: "skill", Args: string(args)}}}
	case strings.HasPrefix(req.FirstUser, "run agent "):
		name := strings.TrimPrefix(req.FirstUser, "run agent ")
		return llmtest.Turn{Calls: []llmtest.Call{taskCall(name, "check", "child task for "+name)}}
	}
	return llmtest.Turn{Text: "ok"}
}

// TestClaudeRealContent is the acceptance test of Claude Code content:
// every skill, agent and command of ../shared/claude-real (published by
// Anthropic and others, unchanged), put in a trusted project's .claude/
// folder, is listed, loaded and run the way Claude Code would, with a
// scripted model: each skill through the skill tool, each agent as a
// subagent with its prompt and tools, each command expanded (its
// !`command` lines run, its arguments filled in) and sent.
func TestClaudeRealContent(t *testing.T) {
	real := sharedtest.Require(t, "claude-real", "real Claude Code content")
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	rec := &realRecorder{children: map[string]subRequest{}, results: map[string]string{}}
	f := newSubFixture(t, "", rec.route)
	ws := f.home.WS
	claude := filepath.Join(ws, ".claude")
	skillFiles := copyInto(t, filepath.Join(real, "skills"), filepath.Join(claude, "skills"))
	agentFiles := copyInto(t, filepath.Join(real, "agents"), filepath.Join(claude, "agents"))
	commandFiles := copyInto(t, filepath.Join(real, "commands"), filepath.Join(claude, "commands"))
	gitRepoWithOrigin(t, ws)
	f.start()
	rt := f.svc.Runtime()

	var warnings []string
	for _, w := range rt.Warnings {
		warnings = append(warnings, w.String())
	}
	joined := strings.Join(warnings, "\n")
	require.NotContains(t, joined, "skipped", "every file loads")
	require.Contains(t, joined, filepath.Join(claude, "agents", "team", "builder.md")+`:6: front matter key "hooks" of Claude Code is not supported here`)

	t.Run("skills", func(t *testing.T) { realSkills(t, f, rec, rt, skillFiles) })
	t.Run("agents", func(t *testing.T) { realAgents(t, f, rec, rt, claude, agentFiles) })
	t.Run("commands", func(t *testing.T) { realCommands(t, f, rec, commandFiles) })
}

// realSkills: each skill is listed and the skill tool loads its body.
func realSkills(t *testing.T, f *subFixture, rec *realRecorder, rt *Runtime, skillFiles []string) {
	ctx := context.Background()
	list, errs := rt.ProjectContent().Skills()
	require.Empty(t, errs)
	seen := map[string]bool{}
	for _, rel := range skillFiles {
		seen[strings.Split(filepath.ToSlash(rel), "/")[0]] = true
	}
	for name := range seen {
		i := slices.IndexFunc(list, func(s skills.Skill) bool { return s.Name == name })
		require.GreaterOrEqual(t, i, 0, "skill %s is listed", name)
		_, err := f.run(ctx, SessionOptions{}, "load skill "+name)
		require.NoError(t, err)
		body := strings.TrimSpace(list[i].Body)
		require.Contains(t, rec.result("load skill "+name), body[:min(60, len(body))], "the skill tool loads %s", name)
	}
}

// realAgents: each agent is offered and runs as a subagent with its own
// prompt and exactly its tools (disallowedTools honoured).
func realAgents(t *testing.T, f *subFixture, rec *realRecorder, rt *Runtime, claude string, agentFiles []string) {
	ctx := context.Background()
	set := rt.ProjectContent().Subagents()
	for _, rel := range agentFiles {
		data, err := os.ReadFile(filepath.Join(claude, "agents", rel))
		require.NoError(t, err)
		def, _ := subagent.Parse(filepath.Join(claude, "agents", rel), data)
		_, ok := set.Get(def.Name)
		require.True(t, ok, "agent %s (%s) is offered", def.Name, rel)
		_, err = f.run(ctx, SessionOptions{}, "run agent "+def.Name)
		require.NoError(t, err)
		child, ran := rec.child(def.Name)
		require.True(t, ran, "agent %s ran", def.Name)
		firstLine := strings.SplitN(def.Prompt, "\n", 2)[0]
		require.Contains(t, child.System, firstLine, "agent %s has its own prompt", def.Name)
		require.Contains(t, rec.result("run agent "+def.Name), "child done")
		for _, tool := range []string{"read_file", "write_file", "edit_file", "run_command", "grep", "search_files", "list_directory", "web_fetch"} {
			want := (def.Tools == nil || slices.Contains(def.Tools, tool)) && !slices.Contains(def.Disallowed, tool)
			require.Equal(t, want, slices.Contains(child.Tools, tool), "agent %s is offered %s: %v", def.Name, tool, want)
		}
	}
	v, _ := rec.child("validator")
	for _, tool := range []string{"write_file", "edit_file", "append_file"} {
		require.NotContains(t, v.Tools, tool, "the read-only validator cannot write")
	}
	require.Contains(t, v.Tools, "read_file")
	a, _ := rec.child("conversation-analyzer")
	require.Contains(t, a.Tools, "grep")
	require.NotContains(t, a.Tools, "run_command")
}

// realCommands: each command is listed, expands with its arguments and
// its !`command` lines run, and is sent as expanded.
func realCommands(t *testing.T, f *subFixture, rec *realRecorder, commandFiles []string) {
	ctx := context.Background()
	cmds, errs := f.svc.CustomCommands(ctx)
	require.Empty(t, errs)
	newLive := func() *Session {
		sess, err := f.svc.Pick(ctx, "", false)
		require.NoError(t, err)
		live, err := f.svc.Session(ctx, sess, SessionOptions{})
		require.NoError(t, err)
		t.Cleanup(func() { live.Close() })
		return live
	}
	live := newLive()
	for _, rel := range commandFiles {
		name := strings.TrimSuffix(filepath.Base(rel), ".md")
		_, ok := slashcmd.Find(cmds, name)
		require.True(t, ok, "/%s is listed", name)
		live := newLive()
		x, err := live.Expand(ctx, "/"+name+" ARG-"+name, nil)
		require.NoError(t, err, "/%s expands", name)
		require.NotNil(t, x)
		require.Contains(t, x.Text, "ARG-"+name, "/%s gets its arguments", name)
		require.NotContains(t, x.Text, "!`git", "/%s runs its !`command` lines", name)
		require.Empty(t, x.Notice, "/%s: every allowed-tools rule is honoured", name)
		_, err = live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: x.Text}}, func(agent.Event) {})
		require.NoError(t, err)
		require.Equal(t, x.Text, rec.lastPrompt(), "/%s is sent as expanded", name)
	}
	x, err := live.Expand(ctx, "/commit", nil)
	require.NoError(t, err)
	require.Contains(t, x.Text, "On branch main", "git status ran")
	require.Contains(t, x.Rules, "run_command(git commit:*)")
	x, err = live.Expand(ctx, "/tools:smart-debug why", nil)
	require.NoError(t, err)
	require.Contains(t, x.Text, "why")
}

func (r *realRecorder) child(name string) (subRequest, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, ok := r.children[name]
	return c, ok
}

func (r *realRecorder) result(prompt string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.results[prompt]
}

func (r *realRecorder) lastPrompt() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.prompts[len(r.prompts)-1]
}

// gitRepoWithOrigin makes dir a git repository with one commit, on branch main,
// with an origin/main (the commands ask git about it).
func gitRepoWithOrigin(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "init"}, {"update-ref", "refs/remotes/origin/main", "HEAD"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
}
