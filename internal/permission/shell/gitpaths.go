package shell

// gitGlobal are the options git itself takes before the subcommand; git
// matches them exactly (no abbreviations, no glued short values).
var gitGlobal = compiled(optSpec{short: "C:c:pPvh", long: "git-dir: work-tree: namespace: exec-path:: config-env: " +
	"paginate no-pager bare no-replace-objects literal-pathspecs glob-pathspecs noglob-pathspecs icase-pathspecs " +
	"no-optional-locks super-prefix: list-cmds: attr-source: version help html-path man-path info-path no-lazy-fetch " +
	"no-advice"})

// gitGlobalPaths are git's options whose value is a path.
var gitGlobalPaths = map[string]PathAccess{"-C": PathChdir, "--work-tree": PathChdir, "--git-dir": PathRead}

func compiled(s optSpec) *optSpec {
	s.compile()
	return &s
}

// gitPaths records git's path options (-C DIR, --git-dir, --work-tree).
func (z *analyzer) gitPaths(sc *SimpleCommand) {
	p := gitGlobal.parse(sc.Words, 1, true)
	for _, o := range p.opts {
		if acc, ok := gitGlobalPaths[o.name]; ok && o.has {
			sc.PathOptions = append(sc.PathOptions, OptionPath{Option: o.shown, Word: o.value, Access: acc})
		}
	}
}
