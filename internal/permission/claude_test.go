package permission

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/kind"
)

// TestClaudeRuleDecides translates Claude Code rules and checks what the
// policy then decides, for every form of rule: each Claude tool's rules
// reach the aidex tools that do its work.
func TestClaudeRuleDecides(t *testing.T) {
	f := newFixture(t)
	base := ClaudeBase{Root: f.root, Home: f.home}
	write := func(p string) Request { return Request{Tool: "write_file", Kind: kind.Write, Paths: []string{p}} }
	edit := func(p string) Request { return Request{Tool: "edit_file", Kind: kind.Write, Paths: []string{p}} }
	read := func(tool, p string) Request { return Request{Tool: tool, Kind: kind.Read, Paths: []string{p}} }
	fetch := func(u string) Request { return Request{Tool: "web_fetch", Kind: kind.Network, Command: u} }
	other := func(tool string) Request { return Request{Tool: tool, Kind: kind.Other} }
	cases := []struct {
		rule   string
		action Decision
		mode   Mode
		req    Request
		want   Decision
	}{
		// Bash: the prefix form, the wildcard form, an exact command, the whole tool.
		{"Bash(git diff:*)", Allow, ModeAsk, execReq("git diff --stat HEAD~1"), Allow},
		{"Bash(git diff:*)", Allow, ModeAsk, execReq("git diff"), Allow},
		{"Bash(git diff:*)", Allow, ModeAsk, execReq("git push"), Ask},
		{"Bash(git diff:*)", Allow, ModeAsk, execReq("git diff && git push"), Ask},
		{"Bash(npm run build)", Allow, ModeAsk, execReq("npm run build"), Allow},
		{"Bash(npm run build)", Allow, ModeAsk, execReq("npm run build --prod"), Ask},
		{"Bash(go test *)", Allow, ModeAsk, execReq("go test ./..."), Allow},
		{"Bash", Deny, ModeYolo, execReq("ls"), Deny},
		{"Bash(*)", Allow, ModeAsk, execReq("make"), Allow},
		{"Bash(git push:*)", Deny, ModeYolo, execReq("git push origin main"), Deny},
		{"Bash(rm:*)", Ask, ModeYolo, execReq("rm x"), Ask},
		// Edit covers every file-changing tool, Write and MultiEdit too.
		{"Edit", Allow, ModeAsk, edit("src/a.go"), Allow},
		{"Edit", Allow, ModeAsk, write("src/a.go"), Allow},
		{"Edit(src/**)", Allow, ModeAsk, write("src/a.go"), Allow},
		{"Edit(src/**)", Allow, ModeAsk, write("docs/a.md"), Ask},
		{"Edit(docs/**)", Deny, ModeYolo, edit("docs/x/a.md"), Deny},
		{"Write(*.lock)", Deny, ModeAutoEdit, write("sub/deep/go.lock"), Deny},
		{"MultiEdit(/sub/**)", Deny, ModeAutoEdit, edit("sub/deep/a.go"), Deny},
		{"NotebookEdit", Deny, ModeYolo, write("nb.ipynb"), Deny},
		{"Edit(sub/)", Deny, ModeYolo, write("sub/deep/x"), Deny},
		{"Edit(./inside.txt)", Deny, ModeYolo, write("inside.txt"), Deny},
		// Read also covers Grep, Glob and LS; paths: relative, //absolute, ~/home.
		{"Read(*.env)", Deny, ModeAsk, read("read_file", "sub/.env"), Deny},
		{"Read(*.env)", Deny, ModeAsk, read("grep", ".env"), Deny},
		{"Read(secret/**)", Ask, ModeAsk, read("search_files", "secret/a"), Ask},
		{"Read(secret/**)", Ask, ModeAsk, read("list_directory", "secret/a"), Ask},
		{"Read(secret/**)", Ask, ModeAsk, read("read_file", "public/a"), Allow},
		{"Read(//" + filepath.ToSlash(f.root)[1:] + "/sub/**)", Deny, ModeAsk, read("read_file", "sub/deep/x"), Deny},
		{"Read(~/.ssh/**)", Deny, ModeAsk, read("read_file", "inside.txt"), Allow},
		{"Grep(sub/**)", Deny, ModeAsk, read("grep", "sub/x"), Deny},
		{"Grep(sub/**)", Deny, ModeAsk, read("read_file", "sub/x"), Allow},
		{"Glob", Deny, ModeAsk, read("search_files", "x"), Deny},
		{"LS", Deny, ModeAsk, read("list_directory", "."), Deny},
		// WebFetch: domain:HOST, any port and scheme, not another host.
		{"WebFetch(domain:go.dev)", Allow, ModeAsk, fetch("https://go.dev/doc"), Allow},
		{"WebFetch(domain:go.dev)", Allow, ModeAsk, fetch("http://GO.dev:8080/x"), Allow},
		{"WebFetch(domain:go.dev)", Allow, ModeAsk, fetch("https://go.dev.evil.com/"), Ask},
		{"WebFetch(domain:go.dev)", Allow, ModeAsk, fetch("https://evil.com/?u=https://go.dev/"), Ask},
		{"WebFetch(domain:evil.com)", Deny, ModeYolo, fetch("https://evil.com:443/x"), Deny},
		{"WebFetch", Allow, ModeAsk, fetch("https://example.org/"), Allow},
		// An untranslatable pattern: a deny covers the whole tool.
		{"WebFetch(https://x.org/*)", Deny, ModeYolo, fetch("https://y.org/"), Deny},
		{"Task(code-reviewer)", Deny, ModeYolo, other("task"), Deny},
		// MCP: a server, a server's every tool, one tool.
		{"mcp__github", Allow, ModeAsk, other("mcp__github__get_issue"), Allow},
		{"mcp__github", Allow, ModeAsk, other("mcp__gitlab__get_issue"), Ask},
		{"mcp__github__*", Deny, ModeYolo, other("mcp__github__delete_repo"), Deny},
		{"mcp__github__get_issue", Allow, ModeAsk, other("mcp__github__get_issue"), Allow},
		{"mcp__github__get_issue", Allow, ModeAsk, other("mcp__github__delete_repo"), Ask},
		// Other Claude tools, and aidex's own syntax.
		{"TodoWrite", Deny, ModeYolo, other("todo_write"), Deny},
		{"KillShell", Deny, ModeYolo, other("kill_background_process"), Deny},
		{"run_command(go test *)", Allow, ModeAsk, execReq("go test ./x"), Allow},
	}
	for _, c := range cases {
		tr, err := ClaudeRule(c.rule, c.action, "flag", base)
		if err != nil {
			t.Errorf("ClaudeRule(%q): %v", c.rule, err)
			continue
		}
		for _, r := range tr.Rules {
			if r.Action != c.action || r.Source != "flag" {
				t.Errorf("ClaudeRule(%q) rule %s: action %s source %q", c.rule, r, r.Action, r.Source)
			}
		}
		p := newPolicy(t, f, c.mode, true, tr.Rules...)
		if v := p.Check(c.req); v.Decision != c.want {
			t.Errorf("%s %q, mode %s: %+v → %s (%s), want %s; rules %v", c.action, c.rule, c.mode, c.req, v.Decision, v.Rule, c.want, tr.Rules)
		}
	}
}

// TestClaudeRuleWarnings: a rule aidex cannot translate exactly names
// itself in a warning; an allow rule is then left out, a deny or ask rule
// covers the whole tool; an exact one has no warning.
func TestClaudeRuleWarnings(t *testing.T) {
	base := ClaudeBase{Root: "/ws"}
	cases := []struct {
		rule      string
		action    Decision
		rules     []string
		warnMatch string // "" = no warning
	}{
		{"Bash(git diff:*)", Allow, []string{"run_command(git diff *)"}, ""},
		{"Edit(src/**)", Allow, []string{"edit_file(src/**)", "write_file(src/**)"}, ""},
		{"Read(/src/**)", Deny, []string{"read_file(src/**)", "list_directory(src/**)", "search_files(src/**)", "grep(src/**)"}, ""},
		{"Read(//etc/passwd)", Deny, []string{"read_file(/etc/passwd)", "list_directory(/etc/passwd)", "search_files(/etc/passwd)", "grep(/etc/passwd)"}, ""},
		{"Read(//ws/a/**)", Deny, []string{"read_file(a/**)", "list_directory(a/**)", "search_files(a/**)", "grep(a/**)"}, ""},
		{"Read(~/.aws/**)", Allow, nil, "home directory is not known"},
		{"Read(~/.aws/**)", Deny, []string{"read_file", "list_directory", "search_files", "grep"}, "every call of read_file"},
		{"WebFetch(https://x.org/*)", Allow, nil, "domain:HOST"},
		{"WebFetch(domain:x.org)", Ask, []string{"web_fetch(https://x.org/*)", "web_fetch(http://x.org/*)", "web_fetch(https://x.org:*/*)", "web_fetch(http://x.org:*/*)"}, ""},
		{"Task(reviewer)", Allow, nil, "left out"},
		{"Task", Allow, []string{"task"}, ""},
		{"WebSearch", Deny, nil, "aidex has no tool like WebSearch"},
		{"ExitPlanMode", Allow, nil, "no effect"},
		{"mcp__srv__tool(x)", Deny, []string{"mcp__srv__tool"}, "take no pattern"},
		{"mcp__srv", Allow, []string{"mcp__srv__*"}, ""},
		{"Edit(./a.txt)", Allow, []string{"edit_file(a.txt)", "write_file(a.txt)"}, "at any depth"},
		{"Edit()", Deny, []string{"edit_file", "write_file"}, ""},
		{"Bash(*)", Allow, []string{"run_command"}, ""},
	}
	for _, c := range cases {
		tr, err := ClaudeRule(c.rule, c.action, "flag", base)
		if err != nil {
			t.Errorf("ClaudeRule(%q): %v", c.rule, err)
			continue
		}
		var got []string
		for _, r := range tr.Rules {
			got = append(got, r.String())
		}
		if strings.Join(got, " ") != strings.Join(c.rules, " ") {
			t.Errorf("ClaudeRule(%q, %s) = %v, want %v", c.rule, c.action, got, c.rules)
		}
		switch {
		case c.warnMatch == "" && tr.Warning != "":
			t.Errorf("ClaudeRule(%q): unexpected warning %q", c.rule, tr.Warning)
		case c.warnMatch != "" && (!strings.Contains(tr.Warning, c.warnMatch) || !strings.Contains(tr.Warning, c.rule)):
			t.Errorf("ClaudeRule(%q) warning %q, want it to name the rule and say %q", c.rule, tr.Warning, c.warnMatch)
		}
	}
}

func TestClaudeRuleErrors(t *testing.T) {
	for _, spec := range []string{"", "  ", "Bash(git", "Bash)x", "(x)", "Ba sh", "x\x00"} {
		_, err := ClaudeRule(spec, Allow, "flag", ClaudeBase{})
		if !errors.Is(err, ErrClaudeRule) || !strings.Contains(err.Error(), "Tool(pattern)") {
			t.Errorf("ClaudeRule(%q) error %v, want ErrClaudeRule with the expected form", spec, err)
		}
	}
	if _, err := ClaudeRule("Bash", 0, "flag", ClaudeBase{}); !errors.Is(err, ErrClaudeRule) {
		t.Errorf("a zero action: %v", err)
	}
}

// FuzzClaudeRule: any input translates or fails with ErrClaudeRule, and
// every rule it yields is valid in aidex's syntax (written out and parsed
// again, it stays the same rule).
func FuzzClaudeRule(f *testing.F) {
	for _, s := range []string{"Bash(git diff:*)", "Read(~/x)", "Edit(//a/b)", "WebFetch(domain:x)", "mcp__a", "run_command(x *)", "Edit(sub/)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		for _, a := range []Decision{Allow, Ask, Deny} {
			tr, err := ClaudeRule(spec, a, "fuzz", ClaudeBase{Root: "/ws", Home: "/home/u"})
			if err != nil {
				if !errors.Is(err, ErrClaudeRule) {
					t.Fatalf("%q: %v", spec, err)
				}
				continue
			}
			for _, r := range tr.Rules {
				back, err := ParseRule(r.String())
				if err != nil {
					t.Fatalf("%q → %s does not parse: %v", spec, r, err)
				}
				if again, err := ParseRule(back.String()); err != nil || again != back {
					t.Fatalf("%q → %s → %s → %+v %v: not stable", spec, r, back, again, err)
				}
			}
		}
	})
}
