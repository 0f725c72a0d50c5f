package hooks

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// MaxEnvFileBytes caps what is read of a CLAUDE_ENV_FILE (1 MiB).
const MaxEnvFileBytes = 1 << 20

// ParseEnvFile reads the variables a SessionStart or Setup hook wrote to
// CLAUDE_ENV_FILE, for the later commands of the session. Claude Code
// sources the file in bash before each command; aidex reads it instead
// (nothing a hook writes is run later): each line `NAME=value` or
// `export NAME=value`, the value bare, 'single-quoted' (literal) or
// "double-quoted" (\", \\, \$ and \` escapes), with $NAME and ${NAME}
// expanded in bare and double-quoted values against the variables set
// earlier in the file, then getenv (nil: none). Blank lines and # comments
// are skipped. Result: "NAME=value" entries, a later line replacing an
// earlier one's value in place.
//
// Warnings (one line each, "line N: ...") name the lines that are
// skipped: another shell statement (source, eval, unset, a function), a
// bad name or quoting, and variables that would change what programs
// load or run (LD_*, DYLD_*, BASH_ENV, ENV, BASH_FUNC_*, GIT_*, IFS,
// PS4, PROMPT_COMMAND, SHELLOPTS, BASHOPTS). Errors: r fails, or holds
// more than MaxEnvFileBytes (nothing is returned then).
func ParseEnvFile(r io.Reader, getenv func(string) string) ([]string, []string, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxEnvFileBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("read: %w", err)
	}
	if len(data) > MaxEnvFileBytes {
		return nil, nil, fmt.Errorf("larger than %d bytes: nothing of it is used", MaxEnvFileBytes)
	}
	var names []string
	vals := map[string]string{}
	lookup := func(n string) string {
		if v, ok := vals[n]; ok {
			return v
		}
		if getenv != nil {
			return getenv(n)
		}
		return ""
	}
	var warnings []string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	sc.Buffer(make([]byte, 0, 4096), MaxEnvFileBytes+1)
	for n := 1; sc.Scan(); n++ {
		name, val, skip, why := envLine(sc.Text(), lookup)
		switch {
		case skip:
			continue
		case why != "":
			warnings = append(warnings, fmt.Sprintf("line %d: %s: ignored", n, why))
			continue
		case riskyEnvName(name):
			warnings = append(warnings, fmt.Sprintf("line %d: %s changes what programs load or run: ignored", n, name))
			continue
		}
		if _, seen := vals[name]; !seen {
			names = append(names, name)
		}
		vals[name] = val
	}
	out := make([]string, 0, len(names))
	for _, n := range names {
		out = append(out, n+"="+vals[n])
	}
	return out, warnings, nil
}

// envLine parses one line: skip for a blank line or a comment, else the
// variable, or why the line is not one.
func envLine(line string, lookup func(string) string) (name, val string, skip bool, why string) {
	t := strings.TrimSpace(line)
	if t == "" || strings.HasPrefix(t, "#") {
		return "", "", true, ""
	}
	if rest, ok := strings.CutPrefix(t, "export"); ok && rest != "" && (rest[0] == ' ' || rest[0] == '\t') {
		t = strings.TrimLeft(rest, " \t")
	}
	eq := strings.IndexByte(t, '=')
	if eq <= 0 || !envName(t[:eq]) {
		return "", "", false, "not NAME=value or export NAME=value (aidex reads the file, it does not run it)"
	}
	name = t[:eq]
	val, ok := envValue(t[eq+1:], lookup)
	if !ok {
		return "", "", false, name + ": unbalanced quotes or more than one word"
	}
	return name, val, false, ""
}

// envValue reads a value: bare words, 'single' and "double" quoted
// parts, joined; a # after whitespace starts a comment.
func envValue(s string, lookup func(string) string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			rest := strings.TrimLeft(s[i:], " \t")
			return b.String(), rest == "" || strings.HasPrefix(rest, "#")
		case c == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				return "", false
			}
			b.WriteString(s[i+1 : i+1+end])
			i += end + 2
		case c == '"':
			w, ok := doubleQuoted(s[i:], &b, lookup)
			if !ok {
				return "", false
			}
			i += w
		case c == '\\' && i+1 < len(s):
			b.WriteByte(s[i+1])
			i += 2
		case c == '$':
			v, w := expandAt(s[i:], lookup)
			b.WriteString(v)
			i += w
		case c == '`' || c == ';' || c == '|' || c == '&' || c == '(' || c == ')' || c == '<' || c == '>':
			return "", false // a command substitution or another statement
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), true
}

// doubleQuoted reads the "double-quoted" part s starts with into b
// (\", \\, \$ and \` escapes, $NAME expanded); w is its width with the
// quotes, ok false when it does not end.
func doubleQuoted(s string, b *strings.Builder, lookup func(string) string) (w int, ok bool) {
	j := 1
	for ; j < len(s) && s[j] != '"'; j++ {
		switch {
		case s[j] == '\\' && j+1 < len(s) && strings.IndexByte("\"\\$`", s[j+1]) >= 0:
			b.WriteByte(s[j+1])
			j++
		case s[j] == '$':
			v, n := expandAt(s[j:], lookup)
			b.WriteString(v)
			j += n - 1
		default:
			b.WriteByte(s[j])
		}
	}
	if j >= len(s) {
		return 0, false
	}
	return j + 1, true
}

// expandAt expands the $NAME or ${NAME} s starts with; w is its width
// (a lone $ is itself).
func expandAt(s string, lookup func(string) string) (string, int) {
	if strings.HasPrefix(s, "${") {
		end := strings.IndexByte(s, '}')
		if end > 2 && envName(s[2:end]) {
			return lookup(s[2:end]), end + 1
		}
		return "$", 1
	}
	j := 1
	for j < len(s) && (s[j] == '_' || isAlpha(s[j]) || (j > 1 && isDigit(s[j]))) {
		j++
	}
	if j == 1 {
		return "$", 1
	}
	return lookup(s[1:j]), j
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// envName reports whether s is a shell variable name.
func envName(s string) bool {
	if s == "" || isDigit(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c != '_' && !isAlpha(c) && !isDigit(c) {
			return false
		}
	}
	return true
}

// riskyEnvName reports the variables that change what programs load or
// run (the dynamic loader's, the shells' start-up and prompt hooks,
// exported functions, git's): a hook may not plant them for later
// commands.
func riskyEnvName(n string) bool {
	u := strings.ToUpper(n)
	for _, p := range []string{"LD_", "DYLD_", "BASH_FUNC_", "GIT_"} {
		if strings.HasPrefix(u, p) {
			return true
		}
	}
	switch u {
	case "BASH_ENV", "ENV", "IFS", "PS4", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "ZDOTDIR":
		return true
	}
	return false
}
