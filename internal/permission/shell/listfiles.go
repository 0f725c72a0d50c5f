package shell

import "strings"

// List files. Some options name a file whose content names more inputs:
// sort, wc and du --files0-from=F, find -files0-from F, tar -T F, file -f F,
// rsync --files-from=F, git add --pathspec-from-file=F, xargs -a F, the
// @F response files of compilers and linkers, 7z's @F and -i@F, the
// checksum files of sha256sum -c, and the names cpio -o and zip -@ read
// from standard input. Confining the list's own path is not enough: the
// names inside it are read at run time, and may lead anywhere (~/.ssh,
// /proc/self/environ), so a command with such an option is unknown
// (PathList in SimpleCommand.PathOptions; ReadOnly refuses it and the
// policy asks, in every mode). The tables below are read for every
// command; commandPathOptions holds the short forms of the commands it
// lists (tar -T, file -f), and wrappers' tables xargs -a.

// listSpelling is a long option whose value is a list of inputs, for any
// command: name without dashes, and the shortest abbreviation GNU getopt
// could accept for it without matching a common option of another kind.
type listSpelling struct {
	name string
	min  int
}

// listSpellings are the long list options recognised for every command,
// with one or two dashes ("--files-from=F", "--files-from F",
// "-files0-from F"), abbreviated as GNU getopt_long allows ("--files0=F").
var listSpellings = []listSpelling{
	{"files-from", len("files-f")}, {"files0-from", len("files0")}, {"arg-file", len("arg-f")},
	{"args-file", len("args-f")}, {"pathspec-from-file", len("pathspec-f")}, {"file-list", len("file-l")},
	{"names-stdin", len("names-s")}, {"read-filenames", len("read-f")},
}

// listSpelled reports whether an option name (without dashes) spells a
// list option: exactly, or as an allowed abbreviation when abbrev.
func listSpelled(name string, abbrev bool) (string, bool) {
	for _, s := range listSpellings {
		if name == s.name || abbrev && len(name) >= s.min && strings.HasPrefix(s.name, name) {
			return s.name, true
		}
	}
	return "", false
}

// listOptionWord matches words[i] against listSpellings: "--NAME=F",
// "--NAME F" (next reports that F is the next word), "-NAME F" and
// "-NAME=F" (exact names only, as Go's flag package and find read them).
// A list option without a value reads standard input.
func listOptionWord(words []Word, i int) (o OptionPath, found, next bool) {
	v := words[i].Pattern
	name, _, eq := strings.Cut(v, "=")
	var bare string
	switch {
	case strings.HasPrefix(name, "--"):
		bare = name[2:]
	case strings.HasPrefix(name, "-") && len(name) > 2:
		bare = name[1:]
	default:
		return o, false, false
	}
	if _, ok := listSpelled(bare, strings.HasPrefix(name, "--")); !ok {
		return o, false, false
	}
	o = OptionPath{Option: name, Access: PathList, Word: literalWord("-")}
	switch {
	case eq:
		o.Word = valueAfter(words[i], name+"=")
	case i+1 < len(words):
		o.Word, next = words[i+1], true
	}
	return o, true, next
}

// listOptions records the list options of words (for git, whose own
// options gitPaths reads).
func (z *analyzer) listOptions(sc *SimpleCommand, words []Word) {
	for i := 1; i < len(words); i++ {
		if words[i].Pattern == "--" {
			return
		}
		o, found, next := listOptionWord(words, i)
		if found {
			z.addPathOption(sc, sc.FoldedBase(), o)
		}
		if next {
			i++
		}
	}
}

// responseFilePrograms take "@FILE" as more arguments read from FILE (GCC,
// binutils, LLVM, javac, rustc, 7z, ...), matched by base name with any
// target prefix or version suffix ("x86_64-linux-gnu-gcc-13").
var responseFilePrograms = set("gcc g++ cc c++ cpp clang clang++ clang-cl ld ld.bfd ld.gold ld.lld lld ar as nm " +
	"objcopy objdump ranlib readelf size strings strip addr2line c++filt elfedit gprof windres dlltool gfortran gccgo " +
	"gnat javac java javadoc javap jar jarsigner jlink jpackage jdeps kotlinc scalac rustc nvcc 7z 7za 7zr " +
	"csc vbc msbuild dotnet")

// takesResponseFiles reports a program that reads @FILE as arguments.
func takesResponseFiles(base string) bool {
	b := strings.TrimRight(base, "0123456789.")
	b = strings.TrimSuffix(b, "-")
	if responseFilePrograms[b] || responseFilePrograms[base] {
		return true
	}
	if i := strings.LastIndexByte(b, '-'); i >= 0 && responseFilePrograms[b[i+1:]] {
		return true
	}
	return false
}

// checksumTools read checksum files with -c/--check: every operand (or
// standard input) lists files they read.
var checksumTools = set("md5sum sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum shasum " +
	"gmd5sum gsha1sum gsha256sum gsha512sum")

// stdinListModes are the options that make a command read the names of
// its inputs from standard input (cpio -o and -p, zip -@).
var stdinListModes = map[string][]string{
	"cpio": {"-o", "-p", "--create", "--pass-through"},
	"zip":  {"-@", "--names-stdin"},
}

// listOperands records the inputs of sc that are lists given another way
// than an option value: @FILE response files, 7z's -i@FILE, sha256sum -c
// FILE, and the names cpio -o and zip -@ read from standard input.
func (z *analyzer) listOperands(sc *SimpleCommand, base string) {
	words := sc.Words
	add := func(opt string, w Word) {
		z.addPathOption(sc, base, OptionPath{Option: opt, Word: w, Access: PathList})
	}
	for _, w := range words[1:] {
		p := w.Pattern
		switch {
		case len(p) > 1 && p[0] == '@' && isTar(base):
			z.addPathOption(sc, base, OptionPath{Option: "@", Word: valueAfter(w, "@"), Access: PathRead})
		case len(p) > 1 && p[0] == '@' && takesResponseFiles(base):
			add("@", valueAfter(w, "@"))
		case strings.HasPrefix(base, "7z") && strings.HasPrefix(p, "-i") && strings.Contains(p, "@"):
			at := strings.IndexByte(p, '@')
			add(p[:at+1], valueAfter(w, p[:at+1]))
		}
	}
	switch {
	case checksumTools[base] && checksumCheck(words):
		var lists []Word
		for _, w := range words[1:] {
			if !strings.HasPrefix(w.Pattern, "-") || w.Pattern == "-" {
				lists = append(lists, w)
			}
		}
		if len(lists) == 0 {
			lists = []Word{literalWord("-")}
		}
		for _, w := range lists {
			add("--check", w)
		}
	case stdinListMode(base, words):
		add(stdinListModes[base][0], literalWord("-"))
	}
}

// checksumCheck reports -c, --check (or an abbreviation) or a cluster
// holding c among a checksum tool's options.
func checksumCheck(words []Word) bool {
	for _, w := range words[1:] {
		v := w.Pattern
		switch {
		case v == "--":
			return false
		case strings.HasPrefix(v, "--"):
			name, _, _ := strings.Cut(v, "=")
			if longPrefixOf(name, "--check") {
				return true
			}
		case len(v) > 1 && v[0] == '-' && strings.IndexByte(v[1:], 'c') >= 0:
			return true
		}
	}
	return false
}

// stdinListMode reports an option of stdinListModes among base's words,
// bundled or abbreviated.
func stdinListMode(base string, words []Word) bool {
	modes, ok := stdinListModes[base]
	if !ok {
		return false
	}
	for _, w := range words[1:] {
		v := w.Pattern
		if v == "--" {
			return false
		}
		for _, m := range modes {
			switch {
			case strings.HasPrefix(m, "--"):
				if name, _, _ := strings.Cut(v, "="); longPrefixOf(name, m) && len(name) > 3 {
					return true
				}
			case len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.IndexByte(v[1:], m[1]) >= 0:
				return true
			}
		}
	}
	return false
}

// isTar reports GNU and BSD tar.
func isTar(base string) bool { return base == "tar" || base == "gtar" || base == "bsdtar" }

// tarOldStyleWords rewrites "tar tvfT A L" as "tar -t -v -f A -T L" (see
// tarOldStyle), so that old-style options are read like the others.
func tarOldStyleWords(words []Word) []Word {
	if len(words) < 2 || !words[1].Literal {
		return words
	}
	args := make([]string, len(words)-1)
	for i, w := range words[1:] {
		args[i] = w.Value
	}
	re := tarOldStyle(args)
	if len(re) == len(args) && (len(args) == 0 || re[0] == args[0]) {
		return words
	}
	out := []Word{words[0]}
	next := 2 // the next value word of words
	for _, l := range words[1].Value {
		out = append(out, literalWord("-"+string(l)))
		if strings.ContainsRune(tarArgLetters, l) && next < len(words) {
			out = append(out, words[next])
			next++
		}
	}
	return append(out, words[next:]...)
}

// listReaders drops the list options a wrapper (xargs -a F) gives a
// command whose arguments are text (echo, printf): the list is printed,
// not read as inputs, so it is an ordinary file read.
func listReaders(sc *SimpleCommand) {
	if !dataArgCommands[sc.Base()] {
		return
	}
	for i, o := range sc.PathOptions {
		if o.Access == PathList {
			sc.PathOptions[i].Access = PathRead
		}
	}
}

// HasListInput reports whether sc reads names of inputs at run time, and
// names the first way it does: an option naming a list file (PathList),
// or arguments xargs reads from its input for a command whose arguments
// are not mere text. Such names cannot be confined before they are read.
func HasListInput(sc SimpleCommand) (string, bool) {
	for _, o := range sc.PathOptions {
		if o.Access == PathList {
			what := o.Option + " " + o.Word.Value
			if o.Option == "@" {
				what = "@" + o.Word.Value
			}
			if o.Word.Value == "-" {
				what = o.Option + " (names read from standard input)"
			}
			return what, true
		}
	}
	if sc.ArgsFromInput && !sc.NonLiteral && !dataArgCommands[sc.Base()] {
		return "xargs (arguments read from its input)", true
	}
	return "", false
}
