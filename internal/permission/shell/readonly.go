package shell

import "strings"

// readOnlyPlain lists commands that only read files or print, with the
// options that make them write or run programs (refused as read-only).
var readOnlyPlain = map[string][]string{
	"ls": nil, "cat": nil, "head": nil, "tail": nil, "wc": nil, "pwd": nil, "echo": nil, "printf": {"-v"},
	"grep": nil, "egrep": nil, "fgrep": nil, "rg": {"--pre"},
	"find": {"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"},
	"tree": {"-o"}, "stat": nil, "file": {"-C", "--compile"}, "du": nil, "df": nil, "basename": nil, "dirname": nil,
	"realpath": nil, "readlink": nil, "true": nil, "false": nil, "which": nil, "uname": nil,
	"date": {"-s", "--set"}, "cut": nil, "tr": nil, "sort": {"-o", "--output", "--compress-program"},
	"diff": nil, "cmp": nil, "comm": nil, "nl": nil, "od": nil, "hexdump": nil, "column": nil,
	"sha256sum": nil, "sha1sum": nil, "md5sum": nil, "sha512sum": nil, "cd": nil, "test": nil, "[": nil,
}

// singleFileOnly lists read-only commands whose second operand is an
// output file (uniq IN OUT, xxd IN OUT); they are read-only with at most
// one operand.
var singleFileOnly = map[string]bool{"uniq": true, "xxd": true}

// gitReadOnly lists read-only git subcommands with refused options.
var gitReadOnly = map[string][]string{
	"status":    nil,
	"diff":      {"--output", "--ext-diff", "--textconv"},
	"log":       {"--output", "--ext-diff", "--textconv"},
	"show":      {"--output", "--ext-diff", "--textconv"},
	"rev-parse": nil, "ls-files": nil, "blame": {"--contents"}, "describe": nil,
	"shortlog": nil, "grep": {"-O", "--open-files-in-pager"},
}

// gitBranchWrite lists git branch options that change branches.
var gitBranchWrite = [...]string{"-d", "-D", "-m", "-M", "-c", "-C", "--delete", "--move", "--copy",
	"--set-upstream-to", "-u", "--unset-upstream", "--edit-description", "-f", "--force", "-t", "--track"}

// ReadOnly reports whether sc is a built-in read-only command and,
// if so, a description for verdicts. Path arguments are checked separately.
func ReadOnly(sc SimpleCommand) (bool, string) {
	if sc.NonLiteral || sc.Suspicious || sc.InlineCode || len(sc.Wrappers) > 0 || sc.EnvPrefixed {
		return false, ""
	}
	if strings.ContainsRune(sc.Name, '/') {
		return false, ""
	}
	for _, w := range sc.Words[1:] {
		if !w.Literal {
			return false, "" // $VAR may expand to secrets or options
		}
	}
	args := sc.Args
	switch sc.Name {
	case "git":
		return gitIsReadOnly(args)
	case "go":
		if len(args) == 1 && args[0] == "version" {
			return true, "go version"
		}
		if len(args) >= 1 && args[0] == "env" && !hasAnyOption(args[1:], []string{"-w", "-u"}) {
			return true, "go env"
		}
		return false, ""
	}
	if singleFileOnly[sc.Name] {
		if countOperands(args) <= 1 && !hasAnyOption(args, []string{"-r", "--revert"}) {
			return true, sc.Name
		}
		return false, ""
	}
	refused, ok := readOnlyPlain[sc.Name]
	if !ok || hasAnyOption(args, refused) {
		return false, ""
	}
	return true, sc.Name
}

func gitIsReadOnly(args []string) (bool, string) {
	i := 0
	for i < len(args) && (args[i] == "--no-pager" || args[i] == "-P" || args[i] == "--no-optional-locks") {
		i++
	}
	if i >= len(args) {
		return false, ""
	}
	sub, rest := args[i], args[i+1:]
	switch sub {
	case "branch":
		if hasAnyOption(rest, gitBranchWrite[:]) || countOperands(rest) > 0 && !hasAnyOption(rest, []string{"--list", "-l", "--contains", "--merged", "--no-merged", "--points-at"}) {
			return false, ""
		}
		return true, "git branch (list)"
	case "remote":
		if len(rest) == 0 || len(rest) == 1 && (rest[0] == "-v" || rest[0] == "--verbose") {
			return true, "git remote (list)"
		}
		return false, ""
	case "tag":
		if len(rest) == 0 || rest[0] == "-l" || rest[0] == "--list" {
			return true, "git tag (list)"
		}
		return false, ""
	}
	refused, ok := gitReadOnly[sub]
	if !ok || hasAnyOption(rest, refused) {
		return false, ""
	}
	return true, "git " + sub
}

// hasAnyOption reports whether args contain one of opts, as a word, as
// "--opt=value", or (for one-letter options) glued to its value or
// bundled with other letters ("-fo", "-ofile", "-nruo"), or as an
// abbreviated long option ("--outp", "--compress-p=sh").
func hasAnyOption(args, opts []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		for _, o := range opts {
			switch {
			case a == o, strings.HasPrefix(a, o+"="):
				return true
			case isLongAbbrev(a, o):
				return true
			case len(o) == 2 && o[0] == '-' && o[1] != '-' && len(a) > 1 && a[0] == '-' && a[1] != '-' &&
				strings.IndexByte(a[1:], o[1]) >= 0:
				return true
			}
		}
	}
	return false
}

// isLongAbbrev reports whether a is an abbreviation of the long option o
// ("--o=x" or "--outp" for "--output"), which GNU getopt_long and git
// accept when unambiguous.
func isLongAbbrev(a, o string) bool {
	if !strings.HasPrefix(o, "--") || !strings.HasPrefix(a, "--") {
		return false
	}
	name, _, _ := strings.Cut(a, "=")
	return len(name) > 2 && strings.HasPrefix(o, name)
}

func countOperands(args []string) int {
	n := 0
	for _, a := range args {
		if !strings.HasPrefix(a, "-") || a == "-" {
			n++
		}
	}
	return n
}
