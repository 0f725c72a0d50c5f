package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func TestSkillDescriptionOfferedAndBodyLoaded(t *testing.T) {
	srv := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "skill", Args: `{"name":"greet"}`}}},
		llmtest.Turn{Calls: []llmtest.Call{{Name: "skill", Args: `{"name":"greet","file":"ref/style.md"}`}}},
		llmtest.Turn{Text: "done"})
	e := newE2E(t, srv, "openai", "")
	e.writeHome(".claude/skills/greet/SKILL.md", "---\nname: greet\ndescription: Greets people in the house style\n---\nAlways greet with SKILL-BODY-MARKER.\n")
	e.writeHome(".claude/skills/greet/ref/style.md", "STYLE-FILE-MARKER\n")
	r := e.run(context.Background(), "-p", "greet me")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests", len(reqs))
	}
	first := string(reqs[0])
	if !strings.Contains(first, "greet: Greets people in the house style") || strings.Contains(first, "SKILL-BODY-MARKER") {
		t.Fatal("the system prompt must list the skill's description, not its body")
	}
	if !strings.Contains(first, `"name":"skill"`) {
		t.Fatal("the skill tool is not offered")
	}
	second := string(reqs[1])
	if !strings.Contains(second, "SKILL-BODY-MARKER") || !strings.Contains(second, "ref/style.md") {
		t.Fatalf("the skill tool's result lacks the body or the file list: %s", second)
	}
	if !strings.Contains(string(reqs[2]), "STYLE-FILE-MARKER") {
		t.Fatal("the skill tool did not read the skill's file outside the workspace")
	}
}

func TestSkillAllowedToolsTrustRule(t *testing.T) {
	script := func() []llmtest.Turn {
		return []llmtest.Turn{
			{Calls: []llmtest.Call{{Name: "skill", Args: `{"name":"tidy"}`}}},
			{Calls: []llmtest.Call{{Name: "run_command", Args: `{"command":"touch tidied"}`}}},
			{Text: "done"},
		}
	}
	body := "---\ndescription: Tidy up\nallowed-tools: Bash(touch:*)\n---\nRun touch tidied.\n"
	// A user's skill: its allowed-tools apply once it is loaded.
	srv := llmtest.NewScript(t, script()...)
	e := newE2E(t, srv, "openai", "")
	e.writeHome(".config/aidex/skills/tidy/SKILL.md", body)
	r := e.run(context.Background(), "-p", "tidy")
	if r.code != 0 {
		t.Fatalf("user skill: exit %d: %s", r.code, r.stderr)
	}
	e.read("tidied")
	// An untrusted project's skill: they do not.
	srv = llmtest.NewScript(t, script()...)
	e = newE2E(t, srv, "openai", "")
	e.write(".claude/skills/tidy/SKILL.md", body)
	r = e.run(context.Background(), "-p", "tidy")
	if r.code != ExitDenied {
		t.Fatalf("untrusted project skill: exit %d, want %d: %s", r.code, ExitDenied, r.stderr)
	}
}
