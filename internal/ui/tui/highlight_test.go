package tui

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	chromastyles "github.com/alecthomas/chroma/v2/styles"
)

// The patched chroma (third_party/chroma, a copy of v2.27.0 with upstream's
// lazy registries, alecthomas/chroma#1354 and #1356) builds its lexer
// registry from generated metadata and parses each built-in style on first
// use. These tests check that everything upstream registers in init is
// still found: lexers by name, file name, MIME type and content (including
// the analysers set in init functions), and the built-in styles.

func TestChromaFindsLexersRegisteredLazily(t *testing.T) {
	for _, c := range []struct{ by, got, want string }{
		{"Get(go)", name(lexers.Get("go")), "Go"},
		{"Get(bash)", name(lexers.Get("bash")), "Bash"},
		{"Get(python)", name(lexers.Get("python")), "Python"},
		{"Get(common-lisp)", name(lexers.Get("common-lisp")), "Common Lisp"},
		{"Get(go-html-template)", name(lexers.Get("go-html-template")), "Go HTML Template"},
		{"Match(main.py)", name(lexers.Match("main.py")), "Python"},
		{"Match(run.sh)", name(lexers.Match("run.sh")), "Bash"},
		{"Match(x.el)", name(lexers.Match("x.el")), "EmacsLisp"},
		{"Match(a.sls)", name(lexers.Match("a.sls")), "YAML+Jinja"},
		{"MatchMimeType(text/x-python)", name(lexers.MatchMimeType("text/x-python")), "Python"},
		{"Analyse(shebang)", name(lexers.Analyse("#!/bin/bash\necho hi\n")), "Bash"},
		{"Analyse(backticks)", name(lexers.Analyse("SELECT `a` FROM `b`")), "MySQL"},
		{"Analyse(zed)", name(lexers.Analyse("definition user {}\nrelation x\npermission y")), "Zed"},
		{"Analyse(zone)", name(lexers.Analyse("@ IN SOA ns1 admin 1 2 3 4 5\n")), "dns"},
	} {
		if c.got != c.want {
			t.Errorf("lexers.%s = %q, want %q", c.by, c.got, c.want)
		}
	}
	// Upstream v2.27.0 registers 297 lexers (786 names with aliases) and
	// 74 styles.
	if n := len(lexers.Names(false)); n != 297 {
		t.Errorf("len(lexers.Names(false)) = %d, want 297 as upstream v2.27.0", n)
	}
	if n := len(lexers.Names(true)); n != 786 {
		t.Errorf("len(lexers.Names(true)) = %d, want 786 as upstream v2.27.0", n)
	}
	if n := len(chromastyles.Names()); n != 74 {
		t.Errorf("len(chromastyles.Names()) = %d, want 74 as upstream v2.27.0", n)
	}
	for _, s := range []string{"monokai", "github-dark", "dracula"} {
		if got := chromastyles.Get(s); got == chromastyles.Fallback || strings.ToLower(got.Name) != s {
			t.Errorf("chromastyles.Get(%s) = %q, want the built-in style", s, got.Name)
		}
	}
}

// TestChromaGeneratedMetadataMatchesXML checks the fork's generated lexer
// metadata (third_party/chroma/lexers/metadata_gen.go, go generate) against
// the <config> of every embedded XML file, which upstream parses in init.
func TestChromaGeneratedMetadataMatchesXML(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "third_party", "chroma", "lexers")
	paths, err := filepath.Glob(filepath.Join(dir, "embedded", "*.xml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no embedded lexers in %s: %v", dir, err)
	}
	for _, path := range paths {
		want, err := chroma.NewXMLLexer(os.DirFS(dir), "embedded/"+filepath.Base(path))
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		wc := want.Config()
		got := lexers.Get(wc.Name)
		if got == nil {
			t.Errorf("%s: no registered lexer named %q", path, wc.Name)
			continue
		}
		if gc := got.Config(); !reflect.DeepEqual(gc, wc) && !wrapped(gc.Name) {
			t.Errorf("%s: generated config %+v, XML says %+v (run go generate ./lexers in third_party/chroma)", path, *gc, *wc)
		}
	}
}

// wrapped reports whether a Go-defined lexer of upstream replaces the XML
// lexer of the same name (its config differs on purpose).
func wrapped(name string) bool {
	switch name {
	case "Go HTML Template", "Go Text Template", "ERB":
		return true
	}
	return false
}

func name(l chroma.Lexer) string {
	if l == nil {
		return "<nil>"
	}
	return l.Config().Name
}

func TestChromaHighlightsGoBashPython(t *testing.T) {
	for _, c := range []struct {
		lang, code, word string
		want             chroma.TokenType
	}{
		{"go", "func main() {}\n", "func", chroma.KeywordDeclaration},
		{"bash", "if true; then echo hi; fi\n", "echo", chroma.NameBuiltin},
		{"python", "def f():\n    return 1\n", "def", chroma.Keyword},
	} {
		it, err := lexers.Get(c.lang).Tokenise(nil, c.code)
		if err != nil {
			t.Fatalf("%s: Tokenise: %v", c.lang, err)
		}
		var got chroma.TokenType = -1
		for _, tok := range it.Tokens() {
			if tok.Value == c.word {
				got = tok.Type
				break
			}
		}
		if got != c.want {
			t.Errorf("%s: token %q is %v, want %v", c.lang, c.word, got, c.want)
		}
	}
}

func TestMarkdownCodeBlockIsHighlighted(t *testing.T) {
	var m mdRenderer
	for _, lang := range []string{"go", "bash", "python"} {
		md := "```" + lang + "\nreturn 1\n```\n"
		out := m.render(md, 80, "dark")
		if !strings.Contains(stripANSI(out), "return 1") {
			t.Fatalf("%s block rendered without its code:\n%q", lang, out)
		}
		plain := m.render("```text\nreturn 1\n```\n", 80, "dark")
		if out == plain {
			t.Errorf("%s block rendered like plain text (no highlighting):\n%q", lang, out)
		}
	}
}

// glamour strips HTML in markdown with bluemonday's strict policy; the
// patched copy (third_party/bluemonday) compiles its regexps and CSS
// tables on first use instead of in package init.
func TestMarkdownStripsHTML(t *testing.T) {
	var m mdRenderer
	out := stripANSI(m.render("before <span style=\"color: red\">inside</span> after\n\n<div onclick=\"x()\">block</div>\n", 80, "dark"))
	for _, want := range []string{"before", "inside", "after", "block"} {
		if !strings.Contains(out, want) {
			t.Errorf("rendered markdown lost %q:\n%s", want, out)
		}
	}
	for _, bad := range []string{"<span", "style=", "onclick", "<div"} {
		if strings.Contains(out, bad) {
			t.Errorf("rendered markdown kept the HTML %q:\n%s", bad, out)
		}
	}
}
