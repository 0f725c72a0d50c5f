package archtest

import (
	"path"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// floors are the storeys of aidex, lowest first (docs/architecture.md
// draws them): a package imports packages of its own floor or of lower
// ones, never of a higher one. Every package of the module is on
// exactly one floor (its first matching pattern, in floor order);
// testSupport packages are imported by tests only.
var floors = []struct {
	name     string
	patterns []string
}{
	{"foundations: leaves and data", []string{
		"internal/kind", "internal/ospath", "internal/cmdshell", "internal/gitdir", "internal/protect",
		"internal/atomicfile", "internal/filelock", "internal/frontmatter", "internal/claudecompat",
		"internal/httpguard", "internal/llm", "internal/llm/sse", "internal/llm/textcall",
		"internal/permission/shell", "internal/permission/urlnorm", "internal/sandbox/helper",
		"internal/tools/walk", "internal/release", "internal/notestore", "internal/memstore", "internal/webpage",
		"internal/trust", "internal/catalog", "internal/listmodels", "internal/config", "internal/imagegen",
		"internal/ctrlchar", "internal/pprofhook", "internal/companion",
	}},
	{"mechanisms: the engine, wire formats, tool core, policy, sandbox, checkpoints, loaders", []string{
		"internal/agent", "internal/llm/...", "internal/tools", "internal/tools/proc", "internal/permission",
		"internal/sandbox", "internal/checkpoint", "internal/loader/...",
	}},
	{"services: the store, tools, MCP client, hooks, Ralph, content loaders, wire schemas, eval", []string{
		"internal/session", "internal/tools/...", "internal/mcp", "internal/mcp/oauth", "internal/hooks",
		"internal/ralph/...", "internal/subagent", "internal/slashcmd", "internal/skills",
		"internal/streamjson/...", "internal/eval", "internal/plugin",
	}},
	{"application: app and its rooms", []string{"internal/app", "internal/app/engine", "internal/app/turn", "internal/app/images", "internal/app/toolcall", "internal/app/rewind", "internal/app/multi"}},
	{"front ends: cli and ui/* (the MCP server, ui/mcpserver, is one)", []string{"internal/ui/...", "internal/cli"}},
	{"programs and generators", []string{"cmd/...", "bench/...", "scripts/...", "internal/docgen/...", "internal/catalog/gen"}},
}

// testSupport are imported by tests (and each other) only.
var testSupport = []string{"internal/sharedtest", "internal/attacktest", "internal/llm/llmtest",
	"internal/loader/loadertest", "internal/mcp/oauth/oauthtest", "internal/tools/toolstest",
	"internal/app/apptest", "internal/mcp/conformance", "internal/mcp/mcptest", "internal/plugin/plugintest", "internal/webpage/webpagetest", "internal/wintest", "internal/archtest"}

// floorOf returns pkg's floor (-1: test support; -2: on no floor).
func floorOf(pkg string) int {
	if slices.ContainsFunc(testSupport, func(p string) bool { return matches(p, pkg) }) {
		return -1
	}
	for i, f := range floors {
		if slices.ContainsFunc(f.patterns, func(p string) bool { return matches(p, pkg) }) {
			return i
		}
	}
	return -2
}

// moduleImports returns each package's imports of the module, from its
// non-test files of every platform (package dir → imported paths, both
// relative to the module).
func moduleImports(t *testing.T) map[string]map[string]bool {
	imports := map[string]map[string]bool{}
	for _, s := range parseModule(t) {
		if strings.HasSuffix(s.path, "_test.go") {
			continue
		}
		dir := path.Dir(s.path)
		if imports[dir] == nil {
			imports[dir] = map[string]bool{}
		}
		for _, im := range s.file.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			if rest, ok := strings.CutPrefix(p, modulePath); ok {
				imports[dir][rest] = true
			}
		}
	}
	return imports
}

// TestFloors fails on a package on no floor, on an import from a lower
// floor to a higher one, and on a package outside the tests importing
// test support.
func TestFloors(t *testing.T) {
	for pkg, ims := range moduleImports(t) {
		if pkg == "." {
			continue
		}
		from := floorOf(pkg)
		if from == -2 {
			t.Errorf("%s is on no floor: add it to floors in internal/archtest/floors_test.go and to docs/architecture.md", pkg)
			continue
		}
		for im := range ims {
			switch to := floorOf(im); {
			case to == -1 && from != -1:
				t.Errorf("%s imports the test support %s outside its tests", pkg, im)
			case to > from && from != -1:
				t.Errorf("%s (floor %q) imports %s, a floor higher (%q)", pkg, floors[from].name, im, floors[to].name)
			}
		}
	}
}

// TestFloorsSeeAnUpwardImport checks the check itself: an import from
// the engine up to app, and from app up to a front end, are reported.
func TestFloorsSeeAnUpwardImport(t *testing.T) {
	for _, c := range []struct{ from, to string }{{"internal/agent", "internal/app"}, {"internal/app", "internal/ui/web"}, {"internal/session", "internal/ui/mcpserver"}, {"internal/mcp", "internal/app"}} {
		if f, to := floorOf(c.from), floorOf(c.to); !(to > f) {
			t.Errorf("%s → %s: floors %d → %d, want an upward import", c.from, c.to, f, to)
		}
	}
	if floorOf("internal/brand-new") != -2 {
		t.Error("a package in no pattern must be on no floor")
	}
}
