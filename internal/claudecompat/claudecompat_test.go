package claudecompat

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/permission"
)

func TestTools(t *testing.T) {
	for in, want := range map[string]string{"Bash": "run_command", "Read": "read_file", "MultiEdit": "edit_file", "Glob": "search_files",
		"LS": "list_directory", "WebFetch": "web_fetch", "Task": "task", "read_file": "read_file", "mcp__github__get_issue": "mcp__github__get_issue",
		" Grep ": "grep", "KillShell": "kill_background_process", "BashOutput": "get_background_output"} {
		got, ok := Tools(in)
		require.True(t, ok, in)
		require.Equal(t, want, got, in)
	}
	for _, in := range []string{"WebSearch", "", "Frobnicate"} {
		_, ok := Tools(in)
		require.False(t, ok, in)
	}
	g, ok := ToolGroup("Edit")
	require.True(t, ok)
	require.Contains(t, g, "write_file")
	require.Contains(t, g, "find_replace_in_files")
	g, _ = ToolGroup("Write")
	require.Contains(t, g, "edit_file", "Write and Edit take away the same tools")
}

func TestRule(t *testing.T) {
	o := Options{Home: "/home/u", Workspace: "/ws"}
	read := func(p string) []string {
		var out []string
		for _, t := range readTools {
			out = append(out, t+"("+p+")")
		}
		return out
	}
	cases := []struct {
		in     string
		want   []string
		exact  bool
		whole  []string
		reason string
	}{
		{in: "Bash", want: []string{"run_command"}, exact: true},
		{in: "Bash(npm run test:*)", want: []string{"run_command(npm run test:*)"}, exact: true},
		{in: "Bash(git diff *)", want: []string{"run_command(git diff *)"}, exact: true},
		{in: "Read(./secrets/**)", want: read("secrets/**"), exact: true},
		{in: "Read(.env)", want: read(".env"), exact: true},
		{in: "Read(/docs/**)", want: read("docs/**"), exact: true},
		{in: "Read(//etc/passwd)", want: read("/etc/passwd"), exact: true},
		{in: "Read(~/.ssh/**)", want: read("/home/u/.ssh/**"), exact: true},
		{in: "Read(build/)", want: read("build/**"), exact: true},
		{in: "Edit(src/**)", want: []string{"write_file(src/**)"}, exact: true},
		{in: "Grep(src/**)", want: []string{"grep(src/**)"}, exact: true},
		{in: "WebFetch(domain:example.com)", want: []string{"web_fetch(https://example.com/*)", "web_fetch(http://example.com/*)"}, exact: true},
		{in: "WebFetch", want: []string{"web_fetch"}, exact: true},
		{in: "mcp__github__get_issue", want: []string{"mcp__github__get_issue"}, exact: true},
		{in: "mcp__github", want: []string{"mcp__github__*"}, exact: true},
		{in: "mcp__github__*", want: []string{"mcp__github__*"}, exact: true},
		{in: "TodoWrite", want: []string{"todo_write"}, exact: true},
		{in: "WebSearch", reason: "no tool like"},
		{in: "Task(Explore)", whole: []string{"task"}, reason: "cannot match"},
		{in: "Read(!keep.txt)", whole: readTools, reason: "negation"},
		{in: "Read(../other/**)", whole: readTools, reason: "leaves"},
		{in: "WebFetch(https://x.com)", whole: []string{"web_fetch"}, reason: "domain:"},
		{in: "Bash(echo (x))", whole: []string{"run_command"}, reason: "parentheses"},
		{in: "mcp__s__t(x)", whole: []string{"mcp__s__t"}, reason: "no pattern"},
		{in: "Bash(git status", reason: "missing closing parenthesis"},
		{in: "Bash)", reason: "unbalanced"},
	}
	for _, c := range cases {
		t.Run(c.in, func(t *testing.T) {
			tr := Rule(c.in, o)
			require.Equal(t, c.exact, tr.Exact, tr.Reason)
			if c.exact {
				if strings.HasPrefix(c.in, "Edit") {
					require.Contains(t, tr.Rules, c.want[0])
					require.Len(t, tr.Rules, len(editTools))
				} else {
					require.Equal(t, c.want, tr.Rules)
				}
				for _, r := range tr.Rules {
					_, err := permission.ParseRule(r)
					require.NoError(t, err, "aidex reads %s", r)
				}
				return
			}
			require.Empty(t, tr.Rules)
			require.Contains(t, tr.Reason, c.reason)
			require.Equal(t, c.whole, tr.Whole)
		})
	}
}

// FuzzRule: any rule translates without a panic; an exact translation is
// rules the policy reads, and an inexact one says why.
func FuzzRule(f *testing.F) {
	for _, s := range []string{"Bash(npm run test:*)", "Read(./x/**)", "WebFetch(domain:a.b)", "mcp__a", "Edit(~/x)", "Read(//x)", "X(", "Bash()"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tr := Rule(s, Options{Home: "/home/u", Workspace: "/ws"})
		if !tr.Exact {
			if tr.Reason == "" || len(tr.Rules) > 0 {
				t.Fatalf("inexact %q without a reason or with rules: %+v", s, tr)
			}
			return
		}
		for _, r := range tr.Rules {
			if _, err := permission.ParseRule(r); err != nil {
				t.Fatalf("%q → %q: %v", s, r, err)
			}
		}
	})
}

// TestToolTableBothWays checks the one table of Claude's tool names read
// both ways: every aidex tool named back in Claude's terms maps forward
// to itself, each aidex tool has at most one Claude name back, every
// Claude name is listed once, and every field rename names a field.
func TestToolTableBothWays(t *testing.T) {
	back := map[string]string{}
	seen := map[string]bool{}
	for _, p := range toolTable {
		if seen[p.claude] {
			t.Errorf("Claude's %s is listed twice", p.claude)
		}
		seen[p.claude] = true
		if got, ok := Tools(p.claude); !ok || got != p.aidex {
			t.Errorf("Tools(%q) = %q, %v; want %q", p.claude, got, ok, p.aidex)
		}
		if !p.back {
			if len(p.fields) > 0 {
				t.Errorf("%s: an alias carries field renames that are never read", p.claude)
			}
			continue
		}
		if other, dup := back[p.aidex]; dup {
			t.Errorf("aidex's %s is named back as both %s and %s", p.aidex, other, p.claude)
		}
		back[p.aidex] = p.claude
		name, fields, ok := ClaudeTool(p.aidex)
		if !ok || name != p.claude || len(fields) == 0 {
			t.Errorf("ClaudeTool(%q) = %q, %v, %v; want %q with its fields", p.aidex, name, fields, ok, p.claude)
		}
		if fwd, _ := Tools(name); fwd != p.aidex {
			t.Errorf("%s → %s → %s: the table does not read back", p.aidex, name, fwd)
		}
		for _, f := range fields {
			if f[0] == "" || f[1] == "" {
				t.Errorf("%s: an empty field name in %v", p.claude, f)
			}
		}
	}
	for _, name := range []string{"read_file_lines", "mcp__s__t", "ask_user", "skill"} {
		if c, _, ok := ClaudeTool(name); ok {
			t.Errorf("ClaudeTool(%q) = %q: aidex's own tools keep their names in hooks", name, c)
		}
	}
}
