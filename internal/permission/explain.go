package permission

import (
	"fmt"
	"path"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/permission/shell"
	"github.com/zelvior/aidex/internal/permission/urlnorm"
)

// SuggestRule returns an allow rule for "always allow in this project"
// (the caller writes it to .aidex/config.toml), or "" when no rule can
// safely allow the request (denied, protected, not analysable, outside).
//
// Commands are keyed by executable and subcommand: "go test ./..." gives
// "run_command(go test *)", "npm run build" gives "run_command(npm run *)".
// Shells, interpreters, privilege, delete and network commands get an
// exact rule for the whole command instead of a wildcard. Paths give
// "write_file(src/**)" for files under src/, or the file itself at the
// workspace root.
func (p *Policy) SuggestRule(req Request) string {
	switch req.Kind {
	case kind.Exec:
		return p.suggestCommand(req)
	case kind.Read, kind.Write:
		return p.suggestPath(req)
	case kind.Network:
		u, err := urlnorm.Parse(req.Command)
		if err != nil {
			return ""
		}
		return fmt.Sprintf("%s(%s://%s/*)", normalizeTool(req.Tool), u.Scheme, u.Host)
	}
	if req.Tool == "" {
		return ""
	}
	return normalizeTool(req.Tool)
}

func (p *Policy) suggestCommand(req Request) string {
	v := p.checkExec(req, p.allRules())
	if v.Decision != Ask {
		return ""
	}
	a := shell.Analyze(req.Command)
	if a.ParseErr != nil || len(a.Opaque) > 0 || a.NonLiteral || len(a.EnvChanges) > 0 || shell.HasControls(req.Command) {
		return ""
	}
	modeRule := "mode " + string(p.mode)
	offset := len(v.Commands) - len(a.Commands) - len(a.Writes) - len(a.Reads)
	if offset < 0 {
		return ""
	}
	for _, cv := range v.Commands {
		if cv.Decision != Allow && cv.Rule != modeRule {
			return "" // asked for a reason an allow rule cannot fix
		}
	}
	for i, sc := range a.Commands {
		if v.Commands[offset+i].Decision != Ask {
			continue
		}
		if sc.Suspicious || sc.NonLiteral {
			return ""
		}
		return CommandTool + "(" + commandKey(sc) + ")"
	}
	return ""
}

// exactRuleCommands get a rule for the exact command instead of a
// wildcard, which would be too broad (besides shells, interpreters and
// downloaders).
var exactRuleCommands = map[string]bool{
	"rm": true, "rmdir": true, "dd": true, "sudo": true, "su": true, "doas": true, "eval": true, "exec": true,
	"xargs": true, "env": true, "chmod": true, "chown": true, "mv": true, "ssh": true, "scp": true, "rsync": true,
	"kill": true, "pkill": true, "killall": true, "source": true, ".": true, "find": true, "git": true, "nohup": true,
	"timeout": true,
}

// exactOnly reports commands for which a wildcard rule would be too broad.
func exactOnly(base string) bool {
	return shell.IsInterpreter(base) || shell.IsDownloader(base) || exactRuleCommands[base]
}

// commandKey returns the pattern of the rule that allows sc: the command,
// the options before its first operand and that operand when it is a
// subcommand, then " *" ("sed -i *", "git commit *", "go test *",
// "make -j4 build *"). Commands for which a wildcard is too broad, risky
// git subcommands and commands whose leading options name a path, are
// built at run time or hold a "*" get the exact command instead.
func commandKey(sc shell.SimpleCommand) string {
	base := sc.Base()
	if exactOnly(base) && base != "git" || strings.ContainsAny(sc.Name, "()") {
		return sc.Text()
	}
	for i := 1; i < len(sc.Words); i++ {
		w := sc.Words[i]
		switch {
		case !w.Literal || w.Glob || strings.Contains(w.Value, "*"):
			return sc.Text()
		case w.Value == "--" || w.Value == "-" || !strings.HasPrefix(w.Value, "-"):
			return operandKey(sc, i)
		case shell.OptionNamesPath(sc, i):
			return sc.Text()
		}
	}
	if base == "git" {
		return sc.Text()
	}
	return prefixText(sc, len(sc.Words)) + " *"
}

// operandKey ends a rule at the first operand sc.Words[i]: kept when it
// is a subcommand (exact for a risky git subcommand, and for git without
// one).
func operandKey(sc shell.SimpleCommand, i int) string {
	w := sc.Words[i].Value
	sub := w != "--" && isSubcommandWord(w)
	switch {
	case sc.Base() == "git" && (!sub || gitRiskySubcommands[w]):
		return sc.Text()
	case sub:
		return prefixText(sc, i+1) + " *"
	}
	return prefixText(sc, i) + " *"
}

// prefixText renders the first n words of sc as rules see them.
func prefixText(sc shell.SimpleCommand, n int) string {
	p := sc
	p.Words = sc.Words[:n]
	return p.Text()
}

// gitRiskySubcommands rewrite history, delete or talk to the network;
// they get exact rules.
var gitRiskySubcommands = map[string]bool{
	"push": true, "reset": true, "clean": true, "rebase": true, "filter-branch": true, "gc": true, "prune": true,
	"fetch": true, "pull": true, "clone": true, "remote": true, "config": true, "submodule": true, "update-ref": true,
	"reflog": true, "branch": true, "tag": true, "checkout": true, "restore": true, "switch": true,
}

func isSubcommandWord(s string) bool {
	if s == "" || len(s) > 40 {
		return false
	}
	for i, r := range s {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' && i > 0 || (r == '-' || r == '_' || r == ':') && i > 0
		if !ok {
			return false
		}
	}
	return true
}

func (p *Policy) suggestPath(req Request) string {
	if len(req.Paths) == 0 {
		return ""
	}
	v := p.Check(req)
	if len(v.Resolved) == 0 || v.Rule == RuleProtected || strings.HasPrefix(v.Rule, "safe_mode") {
		return ""
	}
	tool := normalizeTool(req.Tool)
	var pattern string
	for _, abs := range v.Resolved {
		if !within(p.ws.Root(), abs) || p.ws.IsProtectedWrite(abs) {
			return ""
		}
		rel := p.ws.Rel(abs)
		pat := rel
		if i := strings.IndexByte(rel, '/'); i >= 0 {
			pat = rel[:i] + "/**"
		}
		if strings.ContainsAny(rel, "()*?[{\\") {
			return ""
		}
		if pattern == "" {
			pattern = pat
		} else if pattern != pat {
			pattern = commonDirPattern(pattern, pat)
			if pattern == "" {
				return ""
			}
		}
	}
	return tool + "(" + pattern + ")"
}

func commonDirPattern(a, b string) string {
	da, db := path.Dir(strings.TrimSuffix(a, "/**")), path.Dir(strings.TrimSuffix(b, "/**"))
	if da == db && da != "." {
		return da + "/**"
	}
	return ""
}

// Explain renders a verdict for "aidex permissions check": the decision,
// the rule and source that decided, and for shell commands each simple
// command and redirection with its own decision.
func Explain(v Verdict) string {
	var b strings.Builder
	fmt.Fprintf(&b, "decision: %s\n", v.Decision)
	if v.Rule != "" {
		fmt.Fprintf(&b, "rule:     %s", v.Rule)
		if v.Source != "" {
			fmt.Fprintf(&b, " (from %s)", v.Source)
		}
		b.WriteByte('\n')
	}
	if v.Reason != "" {
		fmt.Fprintf(&b, "reason:   %s\n", v.Reason)
	}
	if len(v.Commands) > 0 {
		b.WriteString("commands:\n")
		for _, c := range v.Commands {
			fmt.Fprintf(&b, "  %-5s  %s\n", c.Decision, shell.EscapeInvisible(c.Command))
			fmt.Fprintf(&b, "         rule: %s (from %s)\n", c.Rule, c.Source)
			if c.Reason != "" {
				fmt.Fprintf(&b, "         %s\n", c.Reason)
			}
		}
	}
	return b.String()
}
