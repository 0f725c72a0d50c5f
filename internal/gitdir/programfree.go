package gitdir

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strings"
)

// ProgramFree reports whether none of the git config files at paths sets
// a program setting (ProgramKeys) or includes another file, judged
// without running git. A path that does not exist counts as an empty
// file. It is strict, so that a "true" never hides what git would read:
// it answers false for a file it cannot read, one larger than 1 MiB, and
// any line outside the plain subset of git's syntax — blank lines,
// comments, "[section]" and `[section "sub"]` headers alone on their
// line, and "key" or "key = value" lines whose value does not continue
// on the next line; a legacy "[section.sub]" header, a key after a
// header on the same line, a continued value, a key before any section,
// a CR or NUL byte all give false. Callers then ask git itself (git
// config --get-regexp), which reads every syntax.
func ProgramFree(paths ...string) bool {
	for _, p := range paths {
		b, err := readConfigFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || !programFreeText(b) {
			return false
		}
	}
	return true
}

// readConfigFile reads a config file of at most maxConfigSize bytes;
// a file that is not regular is an error.
func readConfigFile(p string) ([]byte, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() || fi.Size() > maxConfigSize {
		return nil, fs.ErrInvalid
	}
	return os.ReadFile(p)
}

// programFreeText is ProgramFree for one file's bytes.
func programFreeText(b []byte) bool {
	names, ok := configNames(b)
	if !ok {
		return false
	}
	for _, n := range names {
		if _, isProgram := LookupProgramKey(n); isProgram {
			return false
		}
	}
	return true
}

// ConfigNames returns the names of the settings the git config files at
// paths set, in file order, as `git config --list` spells them (section
// and key in lower case, a subsection as written), read as strictly as
// ProgramFree reads them: ok false for a file it cannot read, one larger
// than 1 MiB, an include, and any line outside the plain subset of git's
// syntax. A path that does not exist counts as an empty file.
func ConfigNames(paths ...string) (names []string, ok bool) {
	for _, p := range paths {
		b, err := readConfigFile(p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, false
		}
		n, ok := configNames(b)
		if !ok {
			return nil, false
		}
		names = append(names, n...)
	}
	return names, true
}

// configNames is ConfigNames for one file's bytes.
func configNames(b []byte) ([]string, bool) {
	if bytes.IndexByte(b, 0) >= 0 || bytes.IndexByte(b, '\r') >= 0 {
		return nil, false
	}
	var names []string
	section := ""
	for len(b) > 0 {
		var line []byte
		line, b, _ = bytes.Cut(b, []byte{'\n'})
		t := strings.TrimLeft(string(line), " \t")
		switch {
		case t == "" || t[0] == '#' || t[0] == ';':
			continue
		case t[0] == '[':
			s, ok := plainHeader(t)
			if name, _, _ := strings.Cut(s, "."); !ok || name == "include" || name == "includeif" {
				return nil, false
			}
			section = s
			continue
		}
		key, ok := plainKey(t)
		if !ok || section == "" {
			return nil, false
		}
		names = append(names, section+"."+key)
	}
	return names, true
}

// plainHeader reads a "[section]" or `[section "sub"]` line alone on its
// line (a comment may follow): the lower-case section, with ".sub" (as
// written) for a subsection; ok false for anything else.
func plainHeader(t string) (string, bool) {
	end := strings.IndexByte(t, ']')
	if end < 0 || !blankOrComment(t[end+1:]) {
		return "", false
	}
	head := t[1:end]
	name, sub, hasSub := strings.Cut(head, " ")
	if !isKeyName(name, true) {
		return "", false
	}
	name = strings.ToLower(name)
	if !hasSub {
		return name, true
	}
	if len(sub) < 2 || sub[0] != '"' || sub[len(sub)-1] != '"' {
		return "", false
	}
	sub = sub[1 : len(sub)-1]
	if strings.ContainsAny(sub, "\"\\") {
		return "", false
	}
	return name + "." + sub, true
}

// plainKey reads a "key" or "key = value" line whose value does not
// continue on the next line: the lower-case key.
func plainKey(t string) (string, bool) {
	i := 0
	for i < len(t) && (isAlnum(t[i]) || t[i] == '-') {
		i++
	}
	key, rest := t[:i], strings.TrimLeft(t[i:], " \t")
	if !isKeyName(key, false) {
		return "", false
	}
	if rest != "" && rest[0] != '=' && !blankOrComment(rest) {
		return "", false
	}
	if strings.HasSuffix(rest, "\\") {
		return "", false
	}
	return strings.ToLower(key), true
}

// isKeyName reports a section name (dots refused: the legacy
// "[section.sub]" form) or a key: a letter, then letters, digits and
// dashes.
func isKeyName(s string, section bool) bool {
	if s == "" || !isAlpha(s[0]) && !section {
		return false
	}
	for i := 0; i < len(s); i++ {
		if !isAlnum(s[i]) && s[i] != '-' {
			return false
		}
	}
	return true
}

func blankOrComment(s string) bool {
	s = strings.TrimLeft(s, " \t")
	return s == "" || s[0] == '#' || s[0] == ';'
}

func isAlpha(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isAlnum(c byte) bool { return isAlpha(c) || c >= '0' && c <= '9' }
