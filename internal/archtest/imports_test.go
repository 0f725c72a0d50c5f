package archtest

import (
	"strings"
	"testing"
)

// importRule forbids packages matching from (a package path below the
// module, "/..." for its subpackages too) to import what matches any of
// not, except what matches allow.
type importRule struct {
	from  string
	not   []string
	allow []string
	why   string
}

var importRules = []importRule{
	{from: "internal/ui/...", not: []string{"internal/permission/...", "internal/tools/...", "internal/setup"},
		why: "front ends reach the policy and the tools only through internal/app"},
	{from: "internal/ui/tui", not: []string{"internal/ui/plain", "internal/ui/web"}, why: "no front end imports another"},
	{from: "internal/ui/plain", not: []string{"internal/ui/tui", "internal/ui/web"}, why: "no front end imports another"},
	{from: "internal/ui/web", not: []string{"internal/ui/tui", "internal/ui/plain", "internal/ui/commands"}, why: "no front end imports another"},
	{from: "internal/ralph", not: []string{"internal/app", "internal/setup", "internal/tools/...", "internal/ui/..."},
		why: "Ralph gets engines through its Backend, which internal/app implements"},
	{from: "internal/agent", not: []string{"internal/..."}, allow: []string{"internal/llm", "internal/llm/textcall", "internal/kind", "internal/ctrlchar"},
		why: "the engine imports only llm and the kind leaf"},
	{from: "internal/permission/...", not: []string{"internal/..."}, allow: []string{"internal/permission/...", "internal/kind", "internal/gitdir", "internal/protect", "internal/ospath", "internal/ctrlchar"},
		why: "the policy imports nothing of aidex"},
	{from: "internal/tools", not: []string{"internal/..."}, allow: []string{"internal/kind", "internal/atomicfile"},
		why: "the tool core imports only leaf helpers"},
	{from: "internal/kind", not: []string{"internal/..."}, why: "kind is a leaf"},
	{from: "internal/ctrlchar", not: []string{"internal/..."}, why: "the control-character escaper is a leaf the policy, the engine and the front ends share"},
	{from: "internal/ospath", not: []string{"internal/..."}, why: "the OS's path rules are a leaf the store, trust and checkpoints share"},
	{from: "internal/cmdshell", not: []string{"internal/..."}, why: "the choice of the command shell is a leaf the tools, hooks and app share"},
	{from: "internal/gitdir", not: []string{"internal/..."}, why: "the git dir resolver is a leaf every part that touches a repository uses"},
	{from: "internal/protect", not: []string{"internal/..."}, why: "the table of protected project files is a leaf the policy and the sandbox share"},
	{from: "internal/companion", not: []string{"internal/..."}, why: "finding the programs beside aidex is a leaf the sandbox, Ralph and the command line share"},
	{from: "internal/sandbox/helper", not: []string{"internal/..."},
		why: "the sandbox helper runs before every command: it links nothing of aidex, to start in about a millisecond"},
	{from: "internal/sandbox", not: []string{"internal/..."}, allow: []string{"internal/sandbox/helper", "internal/gitdir", "internal/protect", "internal/companion"},
		why: "the sandbox knows nothing of aidex's config, tools or front ends; app adapts it"},
	{from: "internal/checkpoint", not: []string{"internal/..."}, allow: []string{"internal/filelock", "internal/atomicfile", "internal/gitdir", "internal/ospath"},
		why: "checkpoints are a workspace's shadow repository, below the application service"},
	{from: "internal/ui/...", not: []string{"internal/sandbox/...", "internal/checkpoint"},
		why: "front ends reach the sandbox and checkpoints only through internal/app"},
	{from: "internal/plugin", not: []string{"internal/..."}, allow: []string{"internal/gitdir", "internal/atomicfile", "internal/filelock"},
		why: "plugins are a format and a store; app feeds their content to the loaders and the content review"},
	{from: "internal/plugin/plugintest", not: []string{"internal/..."}, allow: []string{"internal/sharedtest"},
		why: "the test plugins are files built from the shared material"},
	{from: "internal/ui/...", not: []string{"internal/app/engine", "internal/app/turn"},
		why: "front ends use app's facade; its rooms (building engines, turn strategies) are app's own"},
	{from: "internal/app/turn", not: []string{"internal/..."}, allow: []string{"internal/agent", "internal/llm", "internal/app/multi"},
		why: "the turn strategies run engines: what they need of app comes in as engines, policies and functions (and the front ends' chooser of a parallel turn, from the leaf room app/multi)"},
	{from: "internal/cli", not: []string{"internal/app/engine", "internal/app/turn"},
		why: "front ends use app's facade; its rooms (building engines, turn strategies) are app's own"},
	{from: "internal/cli", not: []string{"internal/ui/chat", "internal/ui/tui", "internal/ui/plain", "internal/ui/mdterm"},
		why: "the interactive chat is linked into aidex-chat only: cli hands it a chatopts.Options, cmd/aidex-chat passes chat.Run (issue 40)"},
	{from: "cmd/aidex", not: []string{"internal/ui/chat", "internal/ui/tui", "internal/ui/plain", "internal/ui/mdterm"},
		why: "aidex hands an interactive session to aidex-chat; linking the chat would cost every start its libraries (issue 40)"},
	{from: "internal/ui/...", not: []string{"internal/imagegen"},
		why: "front ends reach the image generator and its providers only through internal/app"},
}

// matches reports whether pkg (below the module) matches pattern.
func matches(pattern, pkg string) bool {
	if base, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == base || strings.HasPrefix(pkg, base+"/")
	}
	return pkg == pattern
}

func TestImportRules(t *testing.T) {
	imports := moduleImports(t)
	for _, r := range importRules {
		for pkg, ims := range imports {
			if !matches(r.from, pkg) {
				continue
			}
			for im := range ims {
				if forbidden(r, im) {
					t.Errorf("%s imports %s: %s", pkg, im, r.why)
				}
			}
		}
	}
}

func forbidden(r importRule, im string) bool {
	for _, a := range r.allow {
		if matches(a, im) {
			return false
		}
	}
	for _, n := range r.not {
		if matches(n, im) {
			return true
		}
	}
	return false
}

func TestMatches(t *testing.T) {
	for _, c := range []struct {
		pattern, pkg string
		want         bool
	}{
		{"internal/tools/...", "internal/tools", true},
		{"internal/tools/...", "internal/tools/file", true},
		{"internal/tools/...", "internal/toolsx", false},
		{"internal/tools", "internal/tools/file", false},
		{"internal/ui/tui", "internal/ui/tui", true},
	} {
		if got := matches(c.pattern, c.pkg); got != c.want {
			t.Errorf("matches(%q, %q) = %v, want %v", c.pattern, c.pkg, got, c.want)
		}
	}
}
