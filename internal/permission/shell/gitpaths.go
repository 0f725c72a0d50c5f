package shell

import (
	"strings"
	"sync"
)

// gitGlobal are the options git itself takes before the subcommand; git
// matches them exactly (no abbreviations, no glued short values).
// Compiled on first use (see readOnlyCommands).
var gitGlobal = sync.OnceValue(func() *optSpec {
	return compiled(optSpec{short: "C:c:pPvh", long: "git-dir: work-tree: namespace: exec-path:: config-env: " +
		"paginate no-pager bare no-replace-objects literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs " +
		"no-optional-locks super-prefix: list-cmds: attr-source: version help html-path man-path info-path no-lazy-fetch " +
		"no-advice"})
})

// gitGlobalPaths are git's options whose value is a path.
var gitGlobalPaths = map[string]PathAccess{"-C": PathChdir, "--work-tree": PathChdir, "--git-dir": PathRead}

// gitSubcommandFiles are options of git's read-only subcommands whose
// value is a file git reads (git blame --ignore-revs-file=F).
var gitSubcommandFiles = []string{"--ignore-revs-file"}

func compiled(s optSpec) *optSpec {
	s.compile()
	return &s
}

// gitPaths records git's path options (-C DIR, --git-dir, --work-tree)
// and, for git config, the configuration file a write changes.
func (z *analyzer) gitPaths(sc *SimpleCommand) {
	p := gitGlobal().parse(sc.Words, 1, true)
	for _, o := range p.opts {
		if acc, ok := gitGlobalPaths[o.name]; ok && o.has {
			sc.PathOptions = append(sc.PathOptions, OptionPath{Option: o.shown, Word: o.value, Access: acc})
		}
	}
	if !p.nonLiteral && p.next < len(sc.Words) {
		for _, f := range optionValues(sc.Words, p.next+1, gitSubcommandFiles, false) {
			sc.PathOptions = append(sc.PathOptions, OptionPath{Option: "--ignore-revs-file", Word: f, Access: PathRead})
		}
	}
	if p.nonLiteral || p.next >= len(sc.Words) || sc.Words[p.next].Value != "config" {
		return
	}
	args := sc.Words[p.next+1:]
	if f, ok := gitConfigFile(args); ok {
		sc.PathOptions = append(sc.PathOptions, OptionPath{Option: "--file", Word: f, Access: PathRead})
	}
	if gitConfigReads(args) {
		return
	}
	for _, t := range gitConfigTargets(args) {
		z.a.Writes = append(z.a.Writes, Target{Op: "git config", Word: t})
	}
}

// gitConfigReads reports a git config that only reads (its read-only
// table entry accepts it).
func gitConfigReads(args []Word) bool {
	vals := make([]string, len(args))
	for i, w := range args {
		if !w.Literal {
			return false
		}
		vals[i] = w.Value
	}
	_, ok := readOnlyCommands()["git"].subs["config"].accepts("git config", vals)
	return ok
}

// gitConfigTargets returns the files a git config that is not a read
// writes: the repository's config, and the global, system, worktree or
// named file when an option (abbreviated or not) names one.
func gitConfigTargets(args []Word) []Word {
	out := []Word{literalWord(".git/config")}
	for _, w := range args {
		name, _, _ := strings.Cut(w.Pattern, "=")
		if len(name) < 4 || !strings.HasPrefix(name, "--") {
			continue
		}
		switch {
		case strings.HasPrefix("--global", name):
			out = append(out, literalWord("~/.gitconfig"))
		case strings.HasPrefix("--system", name):
			out = append(out, literalWord("/etc/gitconfig"))
		case strings.HasPrefix("--worktree", name):
			out = append(out, literalWord(".git/config.worktree"))
		}
	}
	if f, ok := gitConfigFile(args); ok {
		out = append(out, f)
	}
	return out
}

// gitConfigFile returns the file of git config -f FILE, -fFILE,
// --file FILE or --file=FILE (abbreviated to --fi at least).
func gitConfigFile(args []Word) (Word, bool) {
	for i, w := range args {
		v := w.Pattern
		name, _, eq := strings.Cut(v, "=")
		switch {
		case v == "--":
			return Word{}, false
		case len(name) >= 4 && strings.HasPrefix("--file", name) && eq:
			return valueAfter(w, name+"="), true
		case (len(name) >= 4 && strings.HasPrefix("--file", name) || v == "-f") && i+1 < len(args):
			return args[i+1], true
		case strings.HasPrefix(v, "-f") && len(v) > 2 && v[1] != '-':
			return valueAfter(w, "-f"), true
		}
	}
	return Word{}, false
}
