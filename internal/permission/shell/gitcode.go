package shell

import "strings"

// gitCode is how one git subcommand runs shell code it is given.
type gitCode struct {
	opts      []string // options whose value is shell code
	gluedOnly bool     // the value is only glued (git grep -O[PAGER])
	rest      string   // the word after which the rest is a command (bisect run)
}

// gitCodeSubcommands lists the git subcommands that run shell code from
// their arguments. --exec, --upload-pack and --receive-pack are handled
// for every subcommand (gitPackOptions); programs named by configuration
// (pager, hooks, diff drivers, editors) are the git tool's to neutralise.
var gitCodeSubcommands = map[string]gitCode{
	"rebase":   {opts: []string{"-x"}},
	"difftool": {opts: []string{"-x", "--extcmd"}},
	"filter-branch": {opts: []string{"--env-filter", "--tree-filter", "--index-filter", "--parent-filter",
		"--msg-filter", "--commit-filter", "--tag-name-filter"}},
	"grep":       {opts: []string{"-O", "--open-files-in-pager"}, gluedOnly: true},
	"send-email": {opts: []string{"--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd", "--smtp-server"}},
	"instaweb":   {opts: []string{"--httpd", "-d", "--browser", "-b"}},
	"daemon":     {opts: []string{"--access-hook"}},
	"bisect":     {rest: "run"},
	"submodule":  {rest: "foreach"},
}

// gitSubcommandCode analyses the shell code a git subcommand runs:
// rebase -x, difftool -x, filter-branch --*-filter, grep -O, bisect run,
// submodule foreach, ...
func (z *analyzer) gitSubcommandCode(words []Word, c actx) {
	p := gitGlobal().parse(words, 1, true)
	if p.nonLiteral || p.next >= len(words) {
		return
	}
	i := p.next
	sub := words[i].Value
	spec, ok := gitCodeSubcommands[sub]
	if !ok {
		return
	}
	label := "git " + sub
	for _, code := range optionValues(words, i+1, spec.opts, spec.gluedOnly) {
		z.shellString(code, nested(c, label))
	}
	if spec.rest != "" {
		z.gitRestCommand(words[i+1:], spec.rest, nested(c, label+" "+spec.rest))
	}
}

// gitRestCommand analyses "run CMD ARGS..." (bisect) and "foreach
// [options] CMD ARGS..." (submodule): git gives CMD to the shell as code,
// with ARGS as its arguments.
func (z *analyzer) gitRestCommand(words []Word, marker string, c actx) {
	j := 0
	for j < len(words) && words[j].Value != marker {
		j++
	}
	j++
	for j < len(words) && strings.HasPrefix(words[j].Pattern, "-") {
		j++ // foreach --recursive --quiet
	}
	if j >= len(words) {
		return
	}
	parts := []string{}
	for k, w := range words[j:] {
		if !w.Literal {
			z.opaque("git " + marker + " with a command built at run time")
			return
		}
		if k == 0 {
			parts = append(parts, w.Value)
			continue
		}
		parts = append(parts, shellQuote(w.Value))
	}
	z.parseAndWalk(strings.Join(parts, " "), c)
}
