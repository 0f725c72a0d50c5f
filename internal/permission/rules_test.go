package permission

import (
	"strings"
	"testing"
)

func TestParseRule(t *testing.T) {
	ok := map[string]Rule{
		"run_command(go test *)":       {Tool: "run_command", Pattern: "go test *"},
		"Bash(npm run:*)":              {Tool: "run_command", Pattern: "npm run *"},
		"run_command(  git   status )": {Tool: "run_command", Pattern: "git status"},
		"write_file(src/**)":           {Tool: "write_file", Pattern: "src/**"},
		"read_file(*.env)":             {Tool: "read_file", Pattern: "*.env"},
		"web_fetch":                    {Tool: "web_fetch"},
		"*":                            {Tool: "*"},
		"run_command(echo (a))":        {Tool: "run_command", Pattern: "echo (a)"},
	}
	for in, want := range ok {
		got, err := ParseRule(in)
		if err != nil || got != want {
			t.Errorf("ParseRule(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	bad := map[string]string{
		"":                  "empty rule",
		"run_command(":      "missing closing parenthesis",
		"run_command()":     "empty pattern",
		"(x)":               "missing tool name",
		"run command(x)":    "tool name",
		"write_file(src/[)": "bad glob",
		"read_file)":        "unbalanced",
		"x(\x00)":           "NUL",
	}
	for in, want := range bad {
		_, err := ParseRule(in)
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "TOOL(PATTERN)") {
			t.Errorf("ParseRule(%q) error %v, want it to mention %q and the expected form", in, err, want)
		}
	}
}

func TestParseRules(t *testing.T) {
	rs, err := ParseRules(Deny, "/p/.aidex/config.toml", []string{"run_command(rm *)", "read_file(*.pem)"})
	if err != nil || len(rs) != 2 || rs[0].Action != Deny || rs[1].Source != "/p/.aidex/config.toml" {
		t.Fatalf("ParseRules: %+v %v", rs, err)
	}
	_, err = ParseRules(Allow, "flag", []string{"ok", "bad("})
	if err == nil || !strings.Contains(err.Error(), "flag") || !strings.Contains(err.Error(), "bad(") {
		t.Fatalf("error must name source and rule: %v", err)
	}
	if _, err := ParseRules(0, "x", nil); err == nil {
		t.Fatal("zero action accepted")
	}
	if r := (Rule{Tool: "run_command", Pattern: "go *"}); r.String() != "run_command(go *)" {
		t.Fatal(r.String())
	}
}

func TestMatchCommand(t *testing.T) {
	cases := []struct {
		pattern, text string
		want          bool
	}{
		{"go test *", "go test ./...", true},
		{"go test *", "go test", true},
		{"go test *", "go testify", false},
		{"go test *", "go vet", false},
		{"git status", "git status", true},
		{"git status", "git status --short", false},
		{"npm run *", "npm run build", true},
		{"*", "anything at all", true},
		{"git * main", "git push origin main", true},
		{"git * main", "git push origin main2", false},
		{"", "x", true},
		{"rm -rf build", "rm -rf build/../..", false},
	}
	for _, c := range cases {
		if got := matchCommand(c.pattern, c.text); got != c.want {
			t.Errorf("matchCommand(%q, %q) = %v, want %v", c.pattern, c.text, got, c.want)
		}
	}
}

func TestMatchPath(t *testing.T) {
	cases := []struct {
		pattern, rel string
		want         bool
	}{
		{"src/**", "src/a/b.go", true},
		{"src/**", "srcx/a.go", false},
		{"*.env", ".env", false}, // doublestar: * does not match a leading dot? it does; see below
		{"*.env", "prod.env", true},
		{"*.env", "config/prod.env", true},
		{".env*", "deploy/.env.local", true},
		{"docs/*.md", "docs/a.md", true},
		{"docs/*.md", "docs/x/a.md", false},
	}
	for _, c := range cases {
		got := matchPath(c.pattern, c.rel)
		if c.pattern == "*.env" && c.rel == ".env" {
			// doublestar matches "*.env" against ".env" (no dot-file special case).
			if !got {
				t.Errorf("matchPath(*.env, .env) = false; doublestar treats dot files as ordinary")
			}
			continue
		}
		if got != c.want {
			t.Errorf("matchPath(%q, %q) = %v, want %v", c.pattern, c.rel, got, c.want)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeAsk, "ask": ModeAsk, "default": ModeAsk, "plan": ModePlan,
		"auto-edit": ModeAutoEdit, "auto_edit": ModeAutoEdit, "AutoEdit": ModeAutoEdit, "yolo": ModeYolo, " YOLO ": ModeYolo} {
		if got, err := ParseMode(in); err != nil || got != want {
			t.Errorf("ParseMode(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseMode("bypassPermissions"); err == nil || !strings.Contains(err.Error(), "plan, ask, auto-edit or yolo") {
		t.Errorf("unknown mode error: %v", err)
	}
	if len(Modes()) != 4 {
		t.Error("Modes()")
	}
	if d, err := ParseDecision("DENY"); err != nil || d != Deny {
		t.Error("ParseDecision")
	}
	if _, err := ParseDecision("maybe"); err == nil {
		t.Error("ParseDecision accepted maybe")
	}
	if Decision(0).String() != "deny(invalid)" || Allow.String() != "allow" {
		t.Error("Decision.String")
	}
}

func TestToolNameWildcardRules(t *testing.T) {
	r, err := ParseRule("mcp__github__*")
	if err != nil {
		t.Fatal(err)
	}
	for tool, want := range map[string]bool{"mcp__github__create_issue": true, "mcp__GitHub__list-prs": true, "mcp__gitlab__create_issue": false} {
		if got := r.matchesTool(tool); got != want {
			t.Errorf("mcp__github__* on %s: got %v, want %v", tool, got, want)
		}
	}
	r, err = ParseRule("mcp__everything__echo")
	if err != nil {
		t.Fatal(err)
	}
	if !r.matchesTool("mcp__everything__echo") || r.matchesTool("mcp__everything__echo2") {
		t.Error("mcp__everything__echo must match only itself")
	}
}
