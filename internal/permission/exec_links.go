package permission

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/zelvior/aidex/internal/permission/shell"
)

// Bounds of the work done to judge globs and recursive commands; past
// them the command is unknown (it asks, and is denied in plan mode).
const (
	maxBraceWords  = 256   // words one brace expansion may give
	maxGlobMatches = 1024  // paths one glob may match
	maxWalkEntries = 50000 // directory entries a recursive command's walk may visit
)

// physicalJoin joins p to base as the kernel resolves it: a ".." after a
// symlink leaves the link's target, not the link's folder
// ("data/../x" with data -> /outside/d is /outside/x). Without ".." it is
// joinBase.
func physicalJoin(base, p string) string {
	joined := p
	if !filepath.IsAbs(p) {
		joined = base + string(filepath.Separator) + p
	}
	comps := strings.FieldsFunc(joined[len(filepath.VolumeName(joined)):], isSep)
	if !containsStr(comps, "..") {
		return joinBase(base, p)
	}
	cur := filepath.VolumeName(joined) + string(filepath.Separator)
	for _, c := range comps {
		switch c {
		case ".":
		case "..":
			if r, err := filepath.EvalSymlinks(cur); err == nil {
				cur = r
			}
			cur = filepath.Dir(cur)
		default:
			cur = filepath.Join(cur, c)
		}
	}
	return cur
}

// checkGlob judges a path argument with a glob, a brace expansion or an
// expansion (written "*" in pat): braces are expanded, the globs matched
// against the real tree from every directory the line may be in, and each
// match resolved (links included) and confined like a literal path. Too
// many words or matches make the command unknown.
func (p *Policy) checkGlob(pat, shown string, st *execState, f *argFindings) {
	words, ok := expandBraces(pat)
	if !ok {
		f.unsure = append(f.unsure, shown+" expands to too many words to check")
		return
	}
	if st.overflow && !filepath.IsAbs(pat) {
		f.outside = append(f.outside, shown+" (after too many cd commands to track)")
		return
	}
	for _, b := range st.bases {
		for _, w := range words {
			matches, ok := globMatches(b, w)
			if !ok {
				f.unsure = append(f.unsure, shown+" matches too many files to check")
				return
			}
			for _, m := range matches {
				if p.judgeArgPath(m, shown, f) {
					return
				}
			}
		}
	}
}

// judgeArgPath resolves abs (physical, absolute) and records what it
// finds; it reports true when the command is refused already.
func (p *Policy) judgeArgPath(abs, shown string, f *argFindings) bool {
	res, err := p.ws.resolve(abs)
	if err == nil {
		if p.ws.IsProtectedWrite(res) {
			f.protWrite = append(f.protWrite, shown)
		}
		if fi, err := os.Stat(res); err == nil && fi.IsDir() {
			f.dirs = append(f.dirs, res)
		}
		return false
	}
	var pe *PathError
	switch {
	case errors.As(err, &pe) && errors.Is(err, ErrProtected):
		f.protected = pe
		return true
	case errors.Is(err, ErrOutsideWorkspace):
		f.outside = append(f.outside, shown)
		return true
	}
	return false
}

// expandBraces expands bash brace expansion in s: comma lists, nested,
// give one word each; a sequence ({1..9}, {a..z}) becomes "*", which
// matches every word it gives. ok is false past maxBraceWords.
func expandBraces(s string) ([]string, bool) {
	open, close, comma := braceGroup(s)
	if open < 0 {
		return []string{s}, true
	}
	pre, body, post := s[:open], s[open+1:close], s[close+1:]
	var alts []string
	if comma {
		alts = splitTopLevel(body)
	} else {
		alts = []string{"*"}
	}
	var out []string
	for _, a := range alts {
		words, ok := expandBraces(pre + a + post)
		if !ok || len(out)+len(words) > maxBraceWords {
			return nil, false
		}
		out = append(out, words...)
	}
	return out, true
}

// braceGroup finds the first brace group of s that bash expands: a
// comma list or a ".." sequence. comma tells which.
func braceGroup(s string) (open, close int, comma bool) {
	for i := 0; i < len(s); i++ {
		if s[i] != '{' {
			continue
		}
		depth := 0
		for j := i; j < len(s); j++ {
			switch s[j] {
			case '{':
				depth++
			case '}':
				depth--
			}
			if depth > 0 {
				continue
			}
			body := s[i+1 : j]
			if len(splitTopLevel(body)) > 1 {
				return i, j, true
			}
			if strings.Contains(body, "..") && !strings.ContainsAny(body, "{}") {
				return i, j, false
			}
			break
		}
	}
	return -1, -1, false
}

// splitTopLevel splits a brace body at its top-level commas.
func splitTopLevel(body string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(body); i++ {
		switch body[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, body[start:i])
				start = i + 1
			}
		}
	}
	return append(out, body[start:])
}

// globMatches expands the glob pat from base against the real tree, as
// bash does (following links, "*" not matching a leading dot, ".." taken
// physically): the matching paths, or pat itself (joined physically) when
// nothing matches, which bash then passes as written. ok is false past
// maxGlobMatches.
func globMatches(base, pat string) ([]string, bool) {
	joined := pat
	if !filepath.IsAbs(pat) {
		joined = base + string(filepath.Separator) + pat
	}
	if !strings.ContainsAny(pat, "*?[") {
		return []string{physicalJoin(base, pat)}, true
	}
	cur := []string{filepath.VolumeName(joined) + string(filepath.Separator)}
	for _, c := range strings.FieldsFunc(joined[len(filepath.VolumeName(joined)):], isSep) {
		var next []string
		for _, dir := range cur {
			next = append(next, globStep(dir, c)...)
			if len(next) > maxGlobMatches {
				return nil, false
			}
		}
		if cur = next; len(cur) == 0 {
			return []string{physicalJoin(base, pat)}, true
		}
	}
	return cur, true
}

// globStep returns the paths one component c of a glob gives below dir.
func globStep(dir, c string) []string {
	switch {
	case c == ".":
		return []string{dir}
	case c == "..":
		return []string{physicalJoin(dir, "..")}
	case !strings.ContainsAny(c, "*?["):
		return []string{filepath.Join(dir, c)}
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	pat := strings.ReplaceAll(c, "[!", "[^")
	var out []string
	for _, e := range entries {
		name := e.Name()
		if strings.HasPrefix(name, ".") && !strings.HasPrefix(c, ".") {
			continue
		}
		if ok, err := filepath.Match(pat, name); ok || (err != nil && name == c) {
			out = append(out, filepath.Join(dir, name))
		}
	}
	return out
}

// recursion says when a command walks directory trees: with one of the
// short option letters, long options (GNU-style, matched by unambiguous
// prefix) or exact words, or always.
type recursion struct {
	short  string
	long   []string
	words  []string
	always bool
}

// recursiveCommands are commands that read, copy or change whole trees.
// Over a directory holding a link out of the workspace such a command is
// unknown, whether or not the tool follows links by default: versions
// differ (busybox, BSD), and the links it follows on its command line are
// judged as arguments anyway.
var recursiveCommands = map[string]recursion{
	"grep":  {short: "rRd", long: []string{"recursive", "dereference-recursive", "directories"}},
	"egrep": {short: "rRd", long: []string{"recursive", "dereference-recursive", "directories"}},
	"fgrep": {short: "rRd", long: []string{"recursive", "dereference-recursive", "directories"}},
	"rg":    {short: "L", long: []string{"follow"}},
	"ag":    {short: "f", long: []string{"follow"}},
	"ack":   {long: []string{"follow"}},
	"fd":    {short: "L", long: []string{"follow"}},
	"find":  {words: []string{"-L", "-follow"}},
	"ls":    {short: "R", long: []string{"recursive"}},
	"tree":  {short: "l"},
	"du":    {always: true},
	"cp":    {short: "rRaL", long: []string{"recursive", "archive", "dereference"}},
	"scp":   {short: "r"},
	"rsync": {short: "rRaLk", long: []string{"recursive", "archive", "copy-links", "copy-dirlinks", "copy-unsafe-links"}},
	"zip":   {short: "r", long: []string{"recurse-paths"}},
	"tar":   {short: "h", long: []string{"dereference"}},
	"diff":  {short: "r", long: []string{"recursive"}},
	"chmod": {short: "R", long: []string{"recursive"}},
	"chown": {short: "R", long: []string{"recursive"}},
	"chgrp": {short: "R", long: []string{"recursive"}},
}

// recursive reports whether sc walks directory trees.
func recursive(sc shell.SimpleCommand) bool {
	r, ok := recursiveCommands[sc.Base()]
	if !ok {
		return false
	}
	if r.always {
		return true
	}
	for _, a := range sc.Args {
		switch {
		case a == "--":
			return false
		case containsStr(r.words, a):
			return true
		case strings.HasPrefix(a, "--"):
			name, _, _ := strings.Cut(a[2:], "=")
			for _, l := range r.long {
				if name == l || (len(name) >= 3 && strings.HasPrefix(l, name)) {
					return true
				}
			}
		case strings.HasPrefix(a, "-") && r.short != "" && strings.ContainsAny(a[1:], r.short):
			return true
		}
	}
	return false
}

// checkRecursion makes a recursive command unknown when a tree it walks
// (its directory arguments, or the directories the line may be in when
// it names none) holds a symlink that leads out of the workspace or to a
// protected location. The walk follows links inside the workspace and is
// bounded: past maxWalkEntries the command is unknown.
func (p *Policy) checkRecursion(sc shell.SimpleCommand, st *execState, f *argFindings) {
	if !recursive(sc) {
		return
	}
	roots := f.dirs
	if len(roots) == 0 {
		roots = st.bases
	}
	link, over := p.linkOut(roots)
	switch {
	case over:
		f.unsure = append(f.unsure, "it walks more than "+strconv.Itoa(maxWalkEntries)+" files and folders, too many to check for links out of the workspace")
	case link != "":
		f.unsure = append(f.unsure, "it walks "+link+", a symlink that leads out of the workspace")
	}
}

// linkOut walks the trees under roots and returns the first symlink that
// leads out of the workspace (or to a protected location), shown relative
// to the root; over reports that the walk stopped at maxWalkEntries.
func (p *Policy) linkOut(roots []string) (link string, over bool) {
	queue := append([]string(nil), roots...)
	seen := map[string]bool{}
	n := 0
	for len(queue) > 0 {
		dir := queue[0]
		queue = queue[1:]
		if seen[dir] {
			continue
		}
		seen[dir] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // the command cannot read it either
		}
		for _, e := range entries {
			if n++; n > maxWalkEntries {
				return "", true
			}
			path := filepath.Join(dir, e.Name())
			if e.Type()&fs.ModeSymlink == 0 {
				if e.IsDir() {
					queue = append(queue, path)
				}
				continue
			}
			res, err := p.ws.resolve(path)
			if err != nil {
				return p.ws.Rel(path), false
			}
			if fi, err := os.Stat(res); err == nil && fi.IsDir() {
				queue = append(queue, res)
			}
		}
	}
	return "", false
}
