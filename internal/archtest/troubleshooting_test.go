package archtest

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// troublePlaceholder matches what docs/troubleshooting.md writes for the
// parts of a message aidex fills in (PROVIDER, N, "…", a quoted example).
var troublePlaceholder = regexp.MustCompile(`\b(?:PROVIDER|MODEL|VAR|URL|KEY|NAME|FILE|LINE|DIR|TOOL|ID|HOST|FLAG|WORD|COMMAND|REASON|RULE|LIMIT|INPUT|SIZE|HOLDER|N|X|Y)\b|…|"[^"]*"|'[^']*'|: |; |\. `)

// troubleMessage matches a message the page quotes: **`...`** or
// **“ ... “** (a message that holds backticks).
var troubleMessage = regexp.MustCompile("\\*\\*(?:`` (.+?) ``|`([^`]+)`)\\*\\*")

// The troubleshooting page quotes messages aidex prints: every piece of
// each quoted message between the parts aidex fills in (of 16 characters
// or more) is in the source of a non-test Go file. A message reworded in
// the code and not on the page fails here.
func TestTroubleshootingQuotesRealMessages(t *testing.T) {
	root := moduleRoot(t)
	var src strings.Builder
	err := filepath.WalkDir(filepath.Join(root, "internal"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return err
		}
		data, err := os.ReadFile(p)
		src.Write(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	page, err := os.ReadFile(filepath.Join(root, "docs", "troubleshooting.md"))
	if err != nil {
		t.Fatal(err)
	}
	messages := troubleMessage.FindAllStringSubmatch(string(page), -1)
	if len(messages) < 15 {
		t.Fatalf("docs/troubleshooting.md quotes %d messages; the page's shape changed", len(messages))
	}
	for _, m := range messages {
		msg := m[1] + m[2]
		for _, piece := range troublePlaceholder.Split(msg, -1) {
			piece = strings.Trim(piece, " .,:;()")
			if len(piece) >= 16 && !strings.Contains(src.String(), piece) {
				t.Errorf("docs/troubleshooting.md quotes %q: no Go source has %q", msg, piece)
			}
		}
	}
}
