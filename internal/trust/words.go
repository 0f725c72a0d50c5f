package trust

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// maxWords caps the words of one command looked at as file names.
const maxWords = 256

// CommandWords returns the words of a shell command line that may name a
// file it runs or reads: every word of every command in it (pipelines,
// lists, subshells, redirections' targets), with quotes removed and
// $CLAUDE_PROJECT_DIR / ${CLAUDE_PROJECT_DIR} (and the same with AIDEX_)
// replaced by workspace; a word with another expansion keeps its literal
// parts (so "$X/run.sh" gives "/run.sh", which names no workspace file).
// A line that does not parse falls back to its blank-separated fields, so
// a file is never missed for a syntax error. At most maxWords.
func CommandWords(command, workspace string) []string {
	var out []string
	add := func(s string) {
		if s != "" && len(out) < maxWords {
			out = append(out, s)
		}
	}
	f, err := syntax.NewParser(syntax.KeepComments(false)).Parse(strings.NewReader(command), "")
	if err != nil {
		for _, w := range strings.Fields(command) {
			add(strings.Trim(strings.ReplaceAll(expandProjectDir(w, workspace), `"`, ""), `'`))
		}
		return out
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if w, ok := n.(*syntax.Word); ok {
			add(wordText(w, workspace))
		}
		return len(out) < maxWords
	})
	return out
}

// wordText is a word's literal text with the project folder variables
// replaced by workspace and other expansions left out.
func wordText(w *syntax.Word, workspace string) string {
	var b strings.Builder
	var parts func(ps []syntax.WordPart)
	parts = func(ps []syntax.WordPart) {
		for _, p := range ps {
			switch x := p.(type) {
			case *syntax.Lit:
				b.WriteString(x.Value)
			case *syntax.SglQuoted:
				b.WriteString(x.Value)
			case *syntax.DblQuoted:
				parts(x.Parts)
			case *syntax.ParamExp:
				if x.Param != nil && projectVar(x.Param.Value) && x.Exp == nil && x.Repl == nil && x.Slice == nil && x.Index == nil && !x.Length && !x.Excl {
					b.WriteString(workspace)
				}
			}
		}
	}
	parts(w.Parts)
	return b.String()
}

func projectVar(name string) bool {
	return name == "CLAUDE_PROJECT_DIR" || name == "AIDEX_PROJECT_DIR"
}

// expandProjectDir replaces the project folder variables in s.
func expandProjectDir(s, workspace string) string {
	for _, v := range []string{"CLAUDE_PROJECT_DIR", "AIDEX_PROJECT_DIR"} {
		s = strings.ReplaceAll(s, "${"+v+"}", workspace)
		s = strings.ReplaceAll(s, "$"+v, workspace)
	}
	return s
}
