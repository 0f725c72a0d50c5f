package docgen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// root is the repository's root, from this package's folder.
var root = filepath.Join("..", "..")

// Every generated part of docs/ matches the code: a command, flag,
// configuration key or event field added, removed or reworded in the code
// and not in the page (or the reverse) fails here.
func TestGeneratedPartsAreUpToDate(t *testing.T) {
	parts, err := Parts(root)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range parts {
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p.Page)))
		if err != nil {
			t.Fatal(err)
		}
		got, err := Section(data, p.Name)
		if err != nil {
			t.Errorf("%s: %v", p.Page, err)
			continue
		}
		if got != p.Text {
			t.Errorf("%s: the generated part %q is out of date with the code (first difference: %s); run go generate ./internal/docgen", p.Page, p.Name, firstDiff(got, p.Text))
		}
	}
}

// firstDiff names the first line where the page (got) and the code
// (want) differ.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "the page has " + quoteLine(gl) + ", the code gives " + quoteLine(wl)
		}
	}
	return "none"
}

func quoteLine(s string) string {
	if len(s) > 160 {
		s = s[:160] + "…"
	}
	return "«" + s + "»"
}

// The parts the pages hold: each names what it documents.
func TestPartsCoverCommandsKeysAndEvents(t *testing.T) {
	parts, err := Parts(root)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{
		"commands": {"### `aidex`", "### `aidex sessions list`", "| `--permission-mode` |", "| `--json` |"},
		"keys":     {"| `permission_mode` |", "| `sandbox.network` |", "| `providers.NAME.base_url` |", "`AIDEX_MAX_TOOL_TURNS`"},
		"events":   {"| `session` | `session` |", "| `reasoning` | `text` |", "**`stop_reason`**", "`parent_tool_call_id`"},
		"inputs":   {"| `user` |", "| `approval` |", "| `interaction` |", "| `interrupt` |"},
	}
	for _, p := range parts {
		for _, w := range want[p.Name] {
			if !strings.Contains(p.Text, w) {
				t.Errorf("part %s lacks %q", p.Name, w)
			}
		}
		delete(want, p.Name)
	}
	for name := range want {
		t.Errorf("no part %s", name)
	}
}

func TestSpliceReplacesOnlyThePart(t *testing.T) {
	begin, end := markers("x")
	page := []byte("# Page\n\nhand text\n\n" + string(begin) + "old\n" + string(end) + "\nafter\n")
	got, err := Splice(page, "x", "new\nlines\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# Page\n\nhand text\n\n" + string(begin) + "new\nlines\n" + string(end) + "\nafter\n"
	if string(got) != want {
		t.Errorf("Splice gave\n%s\nwant\n%s", got, want)
	}
	if s, err := Section(got, "x"); err != nil || s != "new\nlines\n" {
		t.Errorf("Section = %q, %v", s, err)
	}
	for _, bad := range []string{"no markers\n", string(begin) + "no end\n", string(end) + string(begin)} {
		if _, err := Splice([]byte(bad), "x", "t"); err == nil {
			t.Errorf("Splice(%q) succeeded, want an error naming the missing marker", bad)
		}
	}
}
