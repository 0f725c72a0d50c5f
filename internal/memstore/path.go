package memstore

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// VirtualRoot is the directory name the model uses for its memory.
const VirtualRoot = "/memories"

// Limits of memory paths.
const (
	maxPathBytes  = 1024 // bytes in a whole path
	maxNameBytes  = 255  // bytes in one component
	maxPathDepth  = 16   // components below the family directory
	tmpNamePrefix = ".aidex-tmp-"
)

// ErrBadPath is wrapped by every path refusal of the memory tool.
var ErrBadPath = errors.New("invalid memory path")

// memPath is a checked memory path: dir is the family or SharedDir, rel is
// the slash-separated path below it ("" for the directory itself).
type memPath struct {
	dir string
	rel string
}

// physical returns the path relative to the memory root ("claude/a/b.md").
func (p memPath) physical() string {
	if p.rel == "" {
		return p.dir
	}
	return p.dir + "/" + p.rel
}

// virtual returns the path as the model sees it ("/memories/a/b.md").
func (p memPath) virtual(family string) string {
	v := VirtualRoot
	if p.dir != family {
		v += "/" + p.dir
	}
	if p.rel != "" {
		v += "/" + p.rel
	}
	return v
}

// isRoot reports whether p is the whole memory ("/memories").
func (p memPath) isRoot(family string) bool { return p.dir == family && p.rel == "" }

// checkPath maps a model-given memory path onto the memory root. Accepted
// forms: "/memories", "/memories/x/y.md", "x/y.md" (relative to
// /memories), "/memories/shared/..." for the shared directory. It refuses
// (wrapping ErrBadPath) empty components of "..", absolute paths outside
// /memories, backslashes, colons, control and bidirectional characters,
// invalid UTF-8, names starting with the temp prefix, and over-long or
// over-deep paths. family must be a result of Family.
func checkPath(raw, family string) (memPath, error) {
	bad := func(format string, args ...any) (memPath, error) {
		return memPath{}, fmt.Errorf("%w %q: %s", ErrBadPath, clip(raw), fmt.Sprintf(format, args...))
	}
	if len(raw) > maxPathBytes {
		return bad("longer than %d bytes", maxPathBytes)
	}
	if !utf8.ValidString(raw) {
		return bad("not valid UTF-8")
	}
	if i := strings.IndexFunc(raw, badRune); i >= 0 {
		return bad("contains the character %U; use plain file names", []rune(raw[i:])[0])
	}
	p := strings.TrimSpace(raw)
	switch {
	case p == "" || p == "." || p == "/" || p == VirtualRoot || p == VirtualRoot+"/":
		return memPath{dir: family}, nil
	case strings.HasPrefix(p, VirtualRoot+"/"):
		p = p[len(VirtualRoot)+1:]
	case strings.HasPrefix(p, "/"):
		return bad("absolute paths are outside the memory; use %s/NAME", VirtualRoot)
	}
	var parts []string
	for _, c := range strings.Split(p, "/") {
		switch c {
		case "", ".":
			continue
		case "..":
			return bad(`".." is not allowed; memory paths stay under %s`, VirtualRoot)
		}
		if len(c) > maxNameBytes {
			return bad("a component is longer than %d bytes", maxNameBytes)
		}
		if strings.HasPrefix(c, tmpNamePrefix) {
			return bad("names starting with %s are reserved", tmpNamePrefix)
		}
		parts = append(parts, c)
	}
	dir := family
	if len(parts) > 0 && parts[0] == SharedDir {
		dir, parts = SharedDir, parts[1:]
	}
	if len(parts) > maxPathDepth {
		return bad("deeper than %d directories", maxPathDepth)
	}
	rel := path.Join(parts...)
	if rel == "." {
		rel = ""
	}
	return memPath{dir: dir, rel: rel}, nil
}

// badRune reports characters refused in memory paths.
func badRune(r rune) bool {
	switch {
	case r == '\\':
		return true // a Windows separator: "a\..\..\x"
	case r == ':':
		return true // drive letters and alternate data streams
	case unicode.IsControl(r):
		return true
	case unicode.Is(unicode.Bidi_Control, r):
		return true
	}
	return false
}

// clip shortens s for error messages.
func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	cut := 80
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}
