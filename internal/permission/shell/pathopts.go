package shell

import "strings"

// PathAccess says what a command does with a path given as an option
// value.
type PathAccess uint8

// What an option value names.
const (
	PathRead  PathAccess = iota + 1 // a file the command reads (xargs -a FILE, git --git-dir=DIR)
	PathWrite                       // a file the command writes (strace -o FILE); also in Analysis.Writes
	PathChdir                       // a directory the command runs in (env -C DIR, git -C DIR, tar --directory=DIR)
	// PathList is a file that lists more inputs: names of files the
	// command reads, or arguments (sort --files0-from=F, tar -T F,
	// xargs -a F, gcc @F, sha256sum -c F); "-" is standard input. The
	// names are read at run time, so the policy cannot confine them: a
	// command with one is unknown (listfiles.go).
	PathList
)

// String returns "read", "write" or "chdir".
func (a PathAccess) String() string {
	switch a {
	case PathRead:
		return "read"
	case PathWrite:
		return "write"
	case PathChdir:
		return "chdir"
	case PathList:
		return "list"
	}
	return "unknown"
}

// OptionPath is an option value that names a path, of the command or of
// a wrapper around it: env -C DIR, xargs -a FILE, git -C DIR,
// tar --directory=DIR.
type OptionPath struct {
	// Option is the option as written ("-C", "--chdi").
	Option string
	// Word is the value.
	Word Word
	// Access says what the command does with it.
	Access PathAccess
}

// pathOption is an option of a command whose value names a path.
type pathOption struct {
	short  byte   // the letter of the short form (found in clusters too), 0 when none
	long   string // the long form without "--" (abbreviations count), "" when none
	access PathAccess
	word   string // a single-dash word option without the dash (find -files0-from), "" when none
}

var (
	tarPaths = []pathOption{{'C', "directory", PathChdir, ""}, {'f', "file", PathRead, ""}, {'T', "files-from", PathList, ""},
		{'X', "exclude-from", PathRead, ""}, {'g', "listed-incremental", PathWrite, ""}, {0, "index-file", PathWrite, ""}}
	makePaths = []pathOption{{'C', "directory", PathChdir, ""}, {'f', "file", PathRead, ""}, {0, "makefile", PathRead, ""},
		{'I', "include-dir", PathRead, ""}}
	grepPaths  = []pathOption{{'f', "file", PathRead, ""}, {0, "exclude-from", PathRead, ""}}
	targetDirs = []pathOption{{'t', "target-directory", PathWrite, ""}}
	files0From = []pathOption{{0, "files0-from", PathList, ""}}
)

// commandPathOptions maps a command (its base name, folded) to its options
// whose value names a path: read (confined like an argument), write (a
// file the line writes), chdir (the command works in that directory,
// so its relative paths are relative to it as well) or list (a file
// naming more inputs, which makes the command unknown). Options that name
// a file the command writes for its output are in outputOptions
// (writes.go). Commands not listed get genericPathOptions; git is read by
// gitPaths; every command gets the list options of listfiles.go.
var commandPathOptions = map[string][]pathOption{
	"tar": tarPaths, "gtar": tarPaths, "bsdtar": tarPaths,
	"make": makePaths, "gmake": makePaths,
	"go":   {{'C', "", PathChdir, ""}},
	"sed":  {{'f', "file", PathRead, ""}},
	"grep": grepPaths, "egrep": grepPaths, "fgrep": grepPaths,
	"rg":    {{'f', "file", PathRead, ""}, {0, "ignore-file", PathRead, ""}},
	"patch": {{'d', "directory", PathChdir, ""}, {'i', "input", PathRead, ""}, {'o', "output", PathWrite, ""}, {'r', "reject-file", PathWrite, ""}},
	"cp":    targetDirs, "mv": targetDirs, "ln": targetDirs, "install": targetDirs,
	"unzip": {{'d', "", PathWrite, ""}},
	"wc":    files0From, "du": {{0, "files0-from", PathList, ""}, {'X', "exclude-from", PathRead, ""}},
	"sort":    {{0, "files0-from", PathList, ""}, {'T', "temporary-directory", PathWrite, ""}, {0, "random-source", PathRead, ""}},
	"date":    {{'f', "file", PathRead, ""}, {'r', "reference", PathRead, ""}},
	"hexdump": {{'f', "format-file", PathRead, ""}},
	"jq":      {{'f', "from-file", PathRead, ""}, {'L', "library-path", PathRead, ""}},
	"tree":    {{0, "gitfile", PathRead, ""}, {0, "infofile", PathRead, ""}},
	"file":    {{'f', "files-from", PathList, ""}, {'m', "magic-file", PathRead, ""}},
	"diff":    {{0, "from-file", PathRead, ""}, {0, "to-file", PathRead, ""}, {'X', "exclude-from", PathRead, ""}},
	"find":    {{access: PathList, word: "files0-from"}},
}

// genericPathOptions are long options whose value is a path for every
// command that commandPathOptions does not list; only "--NAME=VALUE" is
// read (whether "--NAME" takes the next word is not known).
// (The list options, --files-from and the like, are read for every
// command by listOptionWord.)
var genericPathOptions = []pathOption{{0, "directory", PathChdir, ""}, {0, "chdir", PathChdir, ""}, {0, "cwd", PathChdir, ""},
	{0, "work-tree", PathChdir, ""}, {0, "git-dir", PathRead, ""}, {0, "file", PathRead, ""}, {0, "exclude-from", PathRead, ""},
	{0, "target-directory", PathWrite, ""}}

// commandPaths records the path options of sc's own arguments: reads and
// directories in sc.PathOptions, writes in the line's writes.
func (z *analyzer) commandPaths(sc *SimpleCommand) {
	base := sc.FoldedBase()
	z.listOperands(sc, base)
	if base == "git" {
		z.gitPaths(sc)
		z.listOptions(sc, sc.Words)
		return
	}
	table, known := commandPathOptions[base]
	words := sc.Words
	if isTar(base) {
		words = tarOldStyleWords(words)
	}
	for i := 1; i < len(words); i++ {
		w := words[i]
		if w.Pattern == "--" {
			break
		}
		var o OptionPath
		var found, next bool
		if known {
			o, found, next = pathOptionWord(table, words, i)
		} else {
			o, found = genericPathOption(w)
		}
		if !found && !next {
			o, found, next = listOptionWord(words, i)
		}
		if found {
			z.addPathOption(sc, base, o)
		}
		if next {
			i++
		}
	}
}

// addPathOption records one path option of sc.
func (z *analyzer) addPathOption(sc *SimpleCommand, base string, o OptionPath) {
	if o.Access == PathWrite {
		z.a.Writes = append(z.a.Writes, Target{Op: base + " " + o.Option, Word: o.Word})
		return
	}
	sc.PathOptions = append(sc.PathOptions, o)
}

// pathOptionWord matches words[i] against a command's path options:
// "-C DIR", "-CDIR", "-xzC DIR", "--directory=DIR", "--dir DIR". next
// reports that the value is the following word.
func pathOptionWord(table []pathOption, words []Word, i int) (o OptionPath, found, next bool) {
	w := words[i]
	v := w.Pattern
	if len(v) < 2 || v[0] != '-' {
		return o, false, false
	}
	for _, p := range table {
		var val Word
		var shown string
		switch {
		case p.word != "" && v == "-"+p.word:
			shown = v
			if next = i+1 < len(words); next {
				val = words[i+1]
			}
		case p.word != "":
			continue
		case strings.HasPrefix(v, "--") && p.long != "":
			name, _, eq := strings.Cut(v, "=")
			if len(name) < 3 || !strings.HasPrefix("--"+p.long, name) {
				continue
			}
			shown = name
			if eq {
				val = valueAfter(w, name+"=")
			} else if next = i+1 < len(words); next {
				val = words[i+1]
			}
		case !strings.HasPrefix(v, "--") && p.short != 0 && firstShort(table, v) == p.short:
			j := strings.IndexByte(v, p.short)
			shown = "-" + string(p.short)
			if j < len(v)-1 {
				val = valueAfter(w, v[:j+1])
			} else if next = i+1 < len(words); next {
				val = words[i+1]
			}
		default:
			continue
		}
		if val.Pattern == "" && val.Value == "" {
			return o, false, next
		}
		return OptionPath{Option: shown, Word: val, Access: p.access}, true, next
	}
	return o, false, false
}

// firstShort returns the first letter of the cluster v ("-xzC") that is a
// short path option of table, 0 when none: getopt reads the letters
// before it as flags and the rest of the word after it as its value, so a
// later letter is part of that value ("date -rsome/f" is -r, not -f).
func firstShort(table []pathOption, v string) byte {
	for j := 1; j < len(v); j++ {
		for _, p := range table {
			if p.short != 0 && v[j] == p.short {
				return v[j]
			}
		}
	}
	return 0
}

// genericPathOption matches "--NAME=VALUE" against genericPathOptions.
func genericPathOption(w Word) (OptionPath, bool) {
	name, _, eq := strings.Cut(w.Pattern, "=")
	if !eq || !strings.HasPrefix(name, "--") {
		return OptionPath{}, false
	}
	for _, p := range genericPathOptions {
		if name == "--"+p.long {
			return OptionPath{Option: name, Word: valueAfter(w, name+"="), Access: p.access}, true
		}
	}
	return OptionPath{}, false
}

// OptionNamesPath reports whether the option word sc.Words[i] names a
// path, glued or in the next word: a path option of the command (or of
// git itself, or a generic one), an output option (writes.go), or a
// glued value that looks like a path ("-o/tmp/x", "--log=../x").
func OptionNamesPath(sc SimpleCommand, i int) bool {
	if sc.NonLiteral || i <= 0 || i >= len(sc.Words) {
		return false
	}
	w := sc.Words[i]
	if len(pathCandidates(w)) > 0 {
		return true
	}
	base := sc.FoldedBase()
	if base == "git" {
		name, _, _ := strings.Cut(w.Pattern, "=")
		_, ok := gitGlobalPaths[name]
		return ok
	}
	if table, ok := commandPathOptions[base]; ok {
		if _, found, next := pathOptionWord(table, sc.Words, i); found || next {
			return true
		}
	} else if _, found := genericPathOption(w); found {
		return true
	}
	if _, found, next := listOptionWord(sc.Words, i); found || next {
		return true
	}
	for _, o := range append(append([]outputOption(nil), outputOptions[base]...), genericOutputs...) {
		if _, _, ok := o.file(sc.Words[1:], i-1, true); ok && o.kind != outOperands {
			return true
		}
	}
	return false
}
