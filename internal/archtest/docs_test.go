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
