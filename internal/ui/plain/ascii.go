package plain

import (
	"io"
	"strings"
)

// UTF8Locale reports whether the locale getenv describes can show UTF-8:
// the first of LC_ALL, LC_CTYPE and LANG that is set names UTF-8 ("UTF-8",
// "utf8", any case). With none set it reports true: terminals without a
// locale are UTF-8 today, and the POSIX default "C" is only assumed when
// asked for by name.
func UTF8Locale(getenv func(string) string) bool {
	for _, k := range []string{"LC_ALL", "LC_CTYPE", "LANG"} {
		if v := getenv(k); v != "" {
			v = strings.ToLower(v)
			return strings.Contains(v, "utf-8") || strings.Contains(v, "utf8")
		}
	}
	return true
}

// asciiMarks maps the line mode's symbols (tool lines, results, task
// status marks, separators) to ASCII for a terminal whose locale is not
// UTF-8.
func asciiMarks() *strings.Replacer {
	return strings.NewReplacer(
		"→", "->", "✓", "ok", "✗", "x", "●", "*", "○", "o", "◐", "~", "–", "-", "—", "--",
		"·", "|", "…", "...", "‖", "||", "↷", "-", "⚠", "!", "☐", "[ ]", "☑", "[x]", "▸", ">", "✻", "*",
	)
}

// asciiWriter writes through to w with the line mode's symbols in ASCII.
type asciiWriter struct {
	w io.Writer
	r *strings.Replacer
}

func (a asciiWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(a.w, a.r.Replace(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// UseASCII makes the line mode print its marks ("✓", "→", the /tasks
// status symbols, "·") in ASCII ("ok", "->", "*", "|"): for a locale that
// is not UTF-8 (see UTF8Locale). Call it before Run.
func (r *REPL) UseASCII() {
	r.Printer.Out = asciiWriter{w: r.Printer.Out, r: asciiMarks()}
}
