package archtest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// developerDocs are the docs written for people working on aidex itself,
// which may name the project's shared folder beside the repository; every
// other document is for users and stays within the repository.
var developerDocs = map[string]bool{
	"docs/development.md": true, "docs/design-notes.md": true, "docs/benchmarks.md": true, "docs/architecture.md": true,
}

// mdLink matches a markdown link's target: [text](target).
var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// The repository's documents point only to what the repository holds: a
// relative link resolves to a file or folder inside it, no document or CI
// script names the project's design notes (STACK.md) instead of keeping
// the facts it needs, and a user-facing document never points to the
// shared folder beside the repository.
func TestDocsPointInsideTheRepository(t *testing.T) {
	root := moduleRoot(t)
	files := []string{"README.md", "CHANGELOG.md", ".ci/run"}
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		files = append(files, "docs/"+filepath.Base(d))
	}
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(root, name))
		if err != nil {
			t.Fatal(err)
		}
		text := string(data)
		if strings.Contains(text, "STACK.md") {
			t.Errorf("%s names STACK.md, which is not in the repository: keep the facts in docs/development.md and point there", name)
		}
		if !developerDocs[name] && strings.Contains(text, "../shared") {
			t.Errorf("%s points to ../shared, outside the repository: user-facing documents stay within it", name)
		}
		for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
			checkLink(t, root, name, m[1])
		}
	}
}

// checkLink reports a relative link of the document name (a path from the
// repository root) that leaves the repository or names a file, or a
// Markdown heading (#fragment), that does not exist.
func checkLink(t *testing.T, root, name, link string) {
	t.Helper()
	target, fragment, _ := strings.Cut(link, "#")
	if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
		return
	}
	p := filepath.Join(root, filepath.FromSlash(name))
	if target != "" {
		p = filepath.Join(root, filepath.Dir(name), filepath.FromSlash(target))
	}
	if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
		t.Errorf("%s links to %s, outside the repository", name, link)
		return
	}
	if _, err := os.Stat(p); err != nil {
		t.Errorf("%s links to %s, which does not exist", name, link)
		return
	}
	if fragment == "" || !strings.HasSuffix(p, ".md") {
		return
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(headingAnchors(string(data)), fragment) {
		t.Errorf("%s links to %s: the page has no heading with the anchor #%s", name, link, fragment)
	}
}

// headingAnchors returns the anchors GitHub gives the Markdown headings of
// text (those outside code fences), in order: the heading lower-cased,
// punctuation but - and _ dropped, spaces as -, and -1, -2, ... added to
// a repeated one.
func headingAnchors(text string) []string {
	var out []string
	seen := map[string]int{}
	fence := false
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fence = !fence
			continue
		}
		title, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " ")
		if fence || !ok || !strings.HasPrefix(line, "#") || len(line)-len(strings.TrimLeft(line, "#")) > 6 {
			continue
		}
		var b strings.Builder
		for _, r := range strings.ToLower(strings.TrimSpace(title)) {
			switch {
			case r == ' ':
				b.WriteByte('-')
			case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
				b.WriteRune(r)
			}
		}
		a := b.String()
		if n := seen[a]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", a, n))
		} else {
			out = append(out, a)
		}
		seen[a]++
	}
	return out
}

// readmeMoves says where each section of the one-page README of before
// issue 35 (161 KB) lives now: its heading there, then the file and
// anchor that hold its text. The README keeps a line and a link per topic.
var readmeMoves = []struct{ heading, now string }{
	{"(the introduction: install, Windows, the first run, the workspace)", "docs/getting-started.md"},
	{"Running aidex", "docs/cli.md#running-aidex"},
	{"Flags of a run (`aidex`, `aidex -p`)", "docs/cli.md#flags-of-a-run-aidex-aidex--p"},
	{"Claude Code and Codex CLI habits", "docs/coming-from.md#claude-code-and-codex-cli-habits"},
	{"Exit codes", "docs/cli.md#exit-codes"},
	{"Why a headless run stopped", "docs/headless.md#why-a-headless-run-stopped"},
	{"The event stream", "docs/headless.md#the-event-stream"},
	{"The Claude dialect", "docs/headless.md#the-claude-dialect"},
	{"Driving aidex from a program (stream-json input)", "docs/headless.md#driving-aidex-from-a-program-stream-json-input"},
	{"Interactive use", "docs/interactive.md"},
	{"Custom slash commands", "docs/commands.md"},
	{"Skills", "docs/skills.md"},
	{"Asking the user", "docs/skills.md#asking-the-user"},
	{"Configuration", "docs/configuration.md"},
	{"Trusted folders and approved content", "docs/configuration.md#trusted-folders-and-approved-content"},
	{"Permissions", "docs/permissions.md"},
	{"Claude Code's settings", "docs/permissions.md#claude-codes-settings"},
	{"Hooks", "docs/hooks.md"},
	{"MCP", "docs/mcp.md"},
	{"Serving aidex over MCP", "docs/mcp.md#serving-aidex-over-mcp"},
	{"OAuth for HTTP MCP servers", "docs/mcp.md#oauth-for-http-mcp-servers"},
	{"Sandbox", "docs/sandbox.md#using-the-sandbox"},
	{"Web UI", "docs/web.md"},
	{"Ralph: the autonomous task loop", "docs/ralph.md"},
	{"Several workers, several machines", "docs/ralph.md#several-workers-several-machines"},
	{"Files, documents and images", "docs/files.md"},
	{"Memory across sessions", "docs/memory.md"},
	{"Tools", "docs/tools.md#tools"},
	{"Notes", "docs/tools.md#notes"},
	{"Image generation", "docs/tools.md#image-generation"},
	{"Web fetch", "docs/tools.md#web-fetch"},
	{"Subagents", "docs/subagents.md"},
	{"Several models, routing and budgets", "docs/models.md"},
	{"Conversation modes", "docs/models.md#conversation-modes"},
	{"Routing", "docs/models.md#routing"},
	{"Budgets and cost", "docs/models.md#budgets-and-cost"},
	{"Sessions", "docs/sessions.md"},
	{"Checkpoints", "docs/sessions.md#checkpoints"},
	{"Measuring models and settings: `aidex eval`", "docs/eval.md#at-a-glance"},
	{"Development", "docs/development.md#commands"},
	{"License", "README.md#license"},
}

// Every section of the old one-page README has a home: the page, and the
// heading within it, that readmeMoves names exist. A page renamed or a
// heading reworded without updating the table fails here.
func TestOldReadmeSectionsHaveAHome(t *testing.T) {
	root := moduleRoot(t)
	for _, m := range readmeMoves {
		checkLink(t, root, "README.md", m.now)
	}
}

// The README's test command (the line of its first code blocks marked
// "# the test command") is the one CI runs: .ci/run has a go test line
// with every word of it, the same packages last, plus its own flags
// (-race, -count, -timeout).
func TestReadmeTestCommandIsWhatCIRuns(t *testing.T) {
	root := moduleRoot(t)
	readme, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	ci, err := os.ReadFile(filepath.Join(root, ".ci", "run"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^(go test [^#\n]*?)\s+# the test command$`).FindSubmatch(readme)
	if m == nil {
		t.Fatal("README.md has no line `go test ...   # the test command`: CI and newcomers look for it there")
	}
	words := strings.Fields(string(m[1]))
	for _, line := range strings.Split(string(ci), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 || f[0] != "go" || f[1] != "test" || f[len(f)-1] != words[len(words)-1] {
			continue
		}
		missing := false
		for _, w := range words {
			missing = missing || !slices.Contains(f, w)
		}
		if !missing {
			return
		}
	}
	t.Errorf(".ci/run has no go test line running the README's test command %q (with CI's own flags added)", m[1])
}

// maxReadmeBytes is the README's size limit (issue 35): a newcomer reads it
// in five minutes; details go to a page under docs/.
const maxReadmeBytes = 15 * 1024

func TestReadmeFitsInFiveMinutes(t *testing.T) {
	fi, err := os.Stat(filepath.Join(moduleRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if fi.Size() > maxReadmeBytes {
		t.Errorf("README.md is %d bytes, over the %d-byte limit: move the details to the topic's page under docs/ and keep a line and a link in the README", fi.Size(), maxReadmeBytes)
	}
}
