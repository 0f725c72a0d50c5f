package tui

import (
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
	chromastyles "github.com/alecthomas/chroma/v2/styles"
)

// The patched chroma (third_party/chroma) builds its lexer and style
// registries on first use instead of in package init. These tests check
// that everything upstream registered in init is still found: lexers by
// name, file name, MIME type and content (the analysers upstream set in
// init functions), and the built-in styles.

func TestChromaFindsLexersRegisteredLazily(t *testing.T) {
	for _, c := range []struct{ by, got, want string }{
		{"Get(go)", name(lexers.Get("go")), "Go"},
		{"Get(bash)", name(lexers.Get("bash")), "Bash"},
		{"Get(python)", name(lexers.Get("python")), "Python"},
		{"Get(common-lisp)", name(lexers.Get("common-lisp")), "Common Lisp"},
		{"Match(main.py)", name(lexers.Match("main.py")), "Python"},
		{"Match(run.sh)", name(lexers.Match("run.sh")), "Bash"},
		{"Match(x.el)", name(lexers.Match("x.el")), "EmacsLisp"},
		{"MatchMimeType(text/x-python)", name(lexers.MatchMimeType("text/x-python")), "Python"},
		{"Analyse(shebang)", name(lexers.Analyse("#!/bin/bash\necho hi\n")), "Bash"},
		{"Analyse(backticks)", name(lexers.Analyse("SELECT `a` FROM `b`")), "MySQL"},
		{"Analyse(zed)", name(lexers.Analyse("definition user {}\nrelation x\npermission y")), "Zed"},
	} {
		if c.got != c.want {
			t.Errorf("lexers.%s = %q, want %q", c.by, c.got, c.want)
		}
	}
	// Upstream v2.2.0 registers 219 lexers (592 names with aliases).
	if n := len(lexers.Names(false)); n != 219 {
		t.Errorf("len(lexers.Names(false)) = %d, want 219 as upstream", n)
	}
	if n := len(chromastyles.Names()); n != 48 {
		t.Errorf("len(chromastyles.Names()) = %d, want 48 as upstream", n)
	}
	if s := chromastyles.Get("monokai"); s == chromastyles.Fallback || s.Name != "monokai" {
		t.Errorf("chromastyles.Get(monokai) = %q, want the built-in monokai style", s.Name)
	}
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
