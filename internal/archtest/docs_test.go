package archtest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
			target, _, _ := strings.Cut(m[1], "#")
			if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			p := filepath.Join(root, filepath.Dir(name), filepath.FromSlash(target))
			if rel, err := filepath.Rel(root, p); err != nil || strings.HasPrefix(rel, "..") {
				t.Errorf("%s links to %s, outside the repository", name, m[1])
				continue
			}
			if _, err := os.Stat(p); err != nil {
				t.Errorf("%s links to %s, which does not exist", name, m[1])
			}
		}
	}
}
