package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/zelvior/aidex/internal/claudecompat"
	"github.com/zelvior/aidex/internal/permission"
)

// compatFlags are the flags of Claude Code, Codex CLI and ayder-cli that aidex takes
// as aliases of its own, so that their users' habits and scripts work.
type compatFlags struct {
	skipPermissions bool     // --dangerously-skip-permissions (Claude Code): --permission-mode yolo
	yolo            bool     // --yolo (Codex CLI): --permission-mode yolo
	fullAuto        bool     // --full-auto (Codex CLI): --permission-mode auto-edit --sandbox workspace-write
	allowedTools    []string // --allowedTools (Claude Code): allow rules in Claude's syntax
	disallowedTools []string // --disallowedTools (Claude Code): deny rules in Claude's syntax
	print           bool     // --print (Claude Code's -p without a value): headless
	stdin           bool     // --stdin (ayder-cli): -f -
	tui             bool     // --tui (ayder-cli's dashboard): --full
	iterations      int      // -I/--iterations N (ayder-cli's tool calls per message): --max-turns N
}

// addCompatFlags adds the Claude Code and Codex CLI aliases to a command
// that takes the run flags.
func addCompatFlags(cmd *cobra.Command, f *compatFlags) {
	fl := cmd.Flags()
	fl.BoolVar(&f.skipPermissions, "dangerously-skip-permissions", false, "alias of --permission-mode yolo (Claude Code's flag)")
	fl.BoolVar(&f.yolo, "yolo", false, "alias of --permission-mode yolo (Codex CLI's flag)")
	fl.BoolVar(&f.fullAuto, "full-auto", false, "alias of --permission-mode auto-edit --sandbox workspace-write (Codex CLI's flag)")
	repeatedVar(fl, &f.allowedTools, "allowedTools", "alias of --allow with rules in Claude Code's syntax, comma- or space-separated: 'Bash(git diff:*)', Edit, mcp__server__tool (alias: --allowed-tools; repeatable)")
	repeatedVar(fl, &f.disallowedTools, "disallowedTools", "alias of --deny with rules in Claude Code's syntax, as --allowedTools (alias: --disallowed-tools; repeatable)")
	fl.BoolVar(&f.print, "print", false, "run headless: the prompt is the arguments or piped stdin (Claude Code's -p/--print; aidex -p takes the prompt as its value, and -p followed by another flag is --print)")
	fl.BoolVar(&f.stdin, "stdin", false, "read the prompt from stdin: alias of -f - (ayder-cli's flag; piped stdin is read without it, too)")
	fl.BoolVar(&f.tui, "tui", false, "alias of --full, the full-screen terminal UI (ayder-cli's dashboard flag)")
	fl.IntVarP(&f.iterations, "iterations", "I", 0, "alias of --max-turns N (ayder-cli's -I, tool calls per message): at most N model responses in this run")
	fl.SetNormalizeFunc(compatNames)
}

// compatNames maps the kebab-case spellings Claude Code also accepts to
// the camelCase flag names (--allowed-tools is --allowedTools).
func compatNames(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	switch name {
	case "allowed-tools":
		return "allowedTools"
	case "disallowed-tools":
		return "disallowedTools"
	}
	return pflag.NormalizedName(name)
}

// claudeMode maps Claude Code's --permission-mode values to aidex's.
func claudeMode(m string) string {
	switch m {
	case "acceptEdits":
		return string(permission.ModeAutoEdit)
	case "bypassPermissions":
		return string(permission.ModeYolo)
	case "default":
		return string(permission.ModeAsk)
	}
	return m
}

// applyCompatFlags folds the aliases into f: the permission mode, the
// sandbox mode and the allow and deny rules; yolo from any flag warns on
// stderr. Errors (exit 2): an alias contradicting the flag it stands for,
// an unknown mode, a rule that is not Claude Code's syntax.
func (a *cliApp) applyCompatFlags(f *runFlags) error {
	c := &f.compat
	mode, from := claudeMode(f.permissionMode), "--permission-mode "+f.permissionMode
	set := func(flag, m string) error {
		if mode != "" && mode != m {
			return usageErr("%s is --permission-mode %s; it cannot be combined with %s", flag, m, from)
		}
		mode, from = m, flag
		return nil
	}
	for _, alias := range []struct {
		on   bool
		flag string
		mode permission.Mode
	}{{c.skipPermissions, "--dangerously-skip-permissions", permission.ModeYolo}, {c.yolo, "--yolo", permission.ModeYolo},
		{c.fullAuto, "--full-auto", permission.ModeAutoEdit}} {
		if alias.on {
			if err := set(alias.flag, string(alias.mode)); err != nil {
				return err
			}
		}
	}
	if c.fullAuto {
		if f.sandbox != "" && f.sandbox != "workspace-write" {
			return usageErr("--full-auto runs commands in the workspace-write sandbox; it cannot be combined with --sandbox %s", f.sandbox)
		}
		f.sandbox = "workspace-write"
	}
	if err := applyAyderFlags(f); err != nil {
		return err
	}
	if mode != "" {
		m, err := permission.ParseMode(mode)
		if err != nil {
			return usageErr("--permission-mode: %v (or Claude Code's default, acceptEdits, bypassPermissions)", err)
		}
		f.permissionMode = string(m)
		if m == permission.ModeYolo && !a.flags.quiet && a.proc.handoff == "" { // aidex said it before handing over
			fmt.Fprintf(a.proc.Stderr, "aidex: warning: %s: permission mode yolo runs every tool call without asking (deny rules, safe_mode, protected paths and the workspace boundary still apply)\n", from)
		}
	}
	allow, err := a.claudeRules("--allowedTools", permission.Allow, c.allowedTools)
	if err != nil {
		return err
	}
	deny, err := a.claudeRules("--disallowedTools", permission.Deny, c.disallowedTools)
	if err != nil {
		return err
	}
	f.allow, f.deny = append(f.allow, allow...), append(f.deny, deny...)
	return nil
}

// applyAyderFlags folds ayder-cli's --stdin, --tui and -I N into -f -,
// --full and --max-turns N. Errors (usage): an alias contradicting the
// flag it stands for.
func applyAyderFlags(f *runFlags) error {
	c := &f.compat
	if c.stdin {
		if f.file != "" && f.file != "-" {
			return usageErr("--stdin reads the prompt from stdin (-f -); it cannot be combined with -f %s", f.file)
		}
		f.file = "-"
	}
	if c.tui {
		f.full = true
	}
	if c.iterations != 0 {
		if c.iterations < 0 {
			return usageErr("-I/--iterations must be a positive number of model responses, not %d", c.iterations)
		}
		if f.maxTurns != 0 && f.maxTurns != c.iterations {
			return usageErr("-I/--iterations is --max-turns; it cannot be combined with --max-turns %d", f.maxTurns)
		}
		f.maxTurns = c.iterations
	}
	return nil
}

// claudeRules translates the values of flag, lists of rules in Claude
// Code's syntax, into aidex rules (claudecompat.Rule, the translation
// .claude/settings.json's permissions use too); each rule it cannot
// translate exactly is a warning on stderr: an allow rule then allows
// nothing, a deny or ask rule covers every use of its tool. Errors
// (usage): a rule not in Claude's syntax; a deny or ask rule that names
// no tool aidex has.
func (a *cliApp) claudeRules(flag string, action permission.Decision, values []string) ([]string, error) {
	if len(values) == 0 {
		return nil, nil
	}
	root := a.flags.workspace
	if root == "" {
		root, _ = os.Getwd()
	}
	if abs, err := filepath.Abs(root); err == nil {
		root = abs
	}
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	o := claudecompat.Options{Home: a.proc.Getenv("HOME"), Workspace: root}
	var out []string
	for _, v := range values {
		for _, spec := range splitClaudeRules(v) {
			tr := claudecompat.Rule(spec, o)
			if tr.Malformed {
				return nil, usageErr("%s: %q is not a Claude Code rule (%s): write TOOL or TOOL(PATTERN), e.g. 'Bash(git diff:*)'", flag, spec, tr.Reason)
			}
			if tr.Exact {
				out = append(out, tr.Rules...)
				continue
			}
			rules, effect := []string(nil), "it allows nothing"
			if action != permission.Allow {
				rules, effect = tr.Whole, "it covers every use of "+strings.Join(tr.Whole, ", ")+" instead"
				if len(rules) == 0 {
					return nil, usageErr("%s: %q cannot be translated (%s) and names no tool aidex has: remove it or write an aidex rule (--deny 'TOOL(PATTERN)')", flag, spec, tr.Reason)
				}
			}
			if !a.flags.quiet && a.proc.handoff == "" { // aidex said it before handing over
				fmt.Fprintf(a.proc.Stderr, "aidex: warning: %s: %q cannot be translated exactly (%s): %s\n", flag, spec, tr.Reason, effect)
			}
			out = append(out, rules...)
		}
	}
	return out, nil
}

// splitClaudeRules splits a value of --allowedTools into its rules: they
// are separated by commas or white space outside parentheses ("Bash(git
// log:*),Read" and "Bash(git log:*) Read" are two rules each).
func splitClaudeRules(v string) []string {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if s := strings.TrimSpace(v[start:end]); s != "" {
			out = append(out, s)
		}
	}
	for i, r := range v {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case depth == 0 && (r == ',' || r == ' ' || r == '\t' || r == '\n'):
			flush(i)
			start = i + 1
		}
	}
	flush(len(v))
	return out
}

// compatArgs rewrites Claude Code's command-line habits that pflag cannot
// parse into aidex's form, before cobra sees them:
//
//   - --allowedTools and --disallowedTools take several values, as in
//     Claude Code (--allowedTools Read 'Bash(git log:*)'): the words after
//     the flag that look like rules (a capitalised tool name or mcp__...,
//     with an optional (pattern)) are its values;
//   - -p (Claude Code's --print) followed by another flag or nothing is
//     --print: the prompt is the arguments or piped stdin.
//
// Everything after "--" is left as it is.
func compatArgs(args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "-p" && (i+1 == len(args) || isFlagWord(args[i+1])):
			out = append(out, "--print")
		case (a == "--allowedTools" || a == "--allowed-tools" || a == "--disallowedTools" || a == "--disallowed-tools") && i+1 < len(args):
			vals := []string{args[i+1]}
			i++
			for i+1 < len(args) && looksLikeClaudeRule(args[i+1]) {
				vals = append(vals, args[i+1])
				i++
			}
			out = append(out, a, strings.Join(vals, ","))
		default:
			out = append(out, a)
		}
	}
	return out
}

// looksLikeClaudeRule reports whether a word is a Claude Code permission
// rule rather than a prompt: Tool or Tool(pattern) with a capitalised tool
// name (Read, Bash(git log:*)), or an MCP tool (mcp__server__tool).
func looksLikeClaudeRule(w string) bool {
	name, _, hasPattern := strings.Cut(w, "(")
	if hasPattern && !strings.HasSuffix(w, ")") {
		return false
	}
	if strings.HasPrefix(name, "mcp__") {
		name = name[len("mcp__"):]
	} else if name == "" || name[0] < 'A' || name[0] > 'Z' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '*') {
			return false
		}
	}
	return name != ""
}

// rewriteCompatArgs is compatArgs for the command lines of a run (aidex,
// aidex exec, aidex resume); other subcommands' arguments are left as
// they are.
func rewriteCompatArgs(root *cobra.Command, args []string) []string {
	cmd, _, err := root.Find(args)
	if err != nil || cmd != root && cmd.Name() != "exec" && cmd.Name() != "resume" {
		return args
	}
	return compatArgs(args)
}

// flagError is the error of a command line cobra refused (exit 2): a
// mistyped flag gets the one it likely meant ("did you mean
// --allowedTools?"), and a flag of Claude Code or Codex CLI that aidex
// names otherwise gets aidex's.
func flagError(c *cobra.Command, err error) error {
	msg := err.Error()
	var ne *pflag.NotExistError
	if errors.As(err, &ne) && ne.GetSpecifiedName() != "" {
		if s := suggestFlag(c.Flags(), ne.GetSpecifiedName()); s != "" {
			msg += "; did you mean " + s + "?"
		}
	}
	return usageErr("%s\nRun '%s --help' for usage.", msg, c.CommandPath())
}

// foreignFlag names aidex's flag for flags of Claude Code and Codex CLI
// that aidex spells otherwise (the ones it takes as they are are
// aliases: --allowedTools, --yolo, ...).
func foreignFlag(name string) string {
	switch name {
	case "max-budget-usd":
		return "--max-cost"
	case "dangerously-bypass-approvals-and-sandbox":
		return "--yolo --sandbox off"
	case "ask-for-approval":
		return "--permission-mode"
	case "add-dirs":
		return "--add-dir"
	case "fallbackModel", "fallback-model-name":
		return "--fallback-model"
	}
	return ""
}

// suggestFlag returns the flag of fs a mistyped --name likely meant, as
// "--flag", or "". Case, '-' and '_' do not count ("--allowed_tools",
// "--permissionMode"); else a name within a typo's distance does.
func suggestFlag(fs *pflag.FlagSet, name string) string {
	if f := foreignFlag(name); f != "" {
		return f
	}
	fold := func(s string) string { return strings.NewReplacer("-", "", "_", "").Replace(strings.ToLower(s)) }
	var names []string
	hit := ""
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" {
			return
		}
		if hit == "" && fold(f.Name) == fold(name) {
			hit = f.Name
		}
		names = append(names, strings.ToLower(f.Name))
	})
	if hit != "" {
		return "--" + hit
	}
	if best := closest(strings.ToLower(name), names); best != "" {
		var real string
		fs.VisitAll(func(f *pflag.Flag) {
			if strings.ToLower(f.Name) == best && real == "" {
				real = f.Name
			}
		})
		return "--" + real
	}
	return ""
}

// isFlagWord reports whether w is a flag rather than a value: --name,
// --name=value or a one-letter -x (a prompt starting with '-' has more).
func isFlagWord(w string) bool {
	return strings.HasPrefix(w, "--") && len(w) > 2 || len(w) == 2 && w[0] == '-' && w[1] != '-'
}

// newResumeCmd is `aidex resume [ID] [PROMPT...]` (Codex CLI's): it
// continues a session as aidex -r ID does, or with --last (or without an
// ID) the latest session of this workspace as aidex -c does; a prompt
// after it is the first message, as for aidex.
func newResumeCmd(a *cliApp) *cobra.Command {
	var rf runFlags
	var last bool
	cmd := &cobra.Command{
		Use:   "resume [ID | --last] [PROMPT...]",
		Short: "Resume a session: alias of aidex -r ID, or with --last (or no ID) of aidex -c",
		Long: `Resume a session, as Codex CLI's resume does: aidex resume ID is an alias of
aidex -r ID, and aidex resume --last (or aidex resume alone) an alias of aidex -c,
the latest session of this workspace. Words after the ID (after --last: all
words) are the first message; every flag of aidex works here too.`,
		Example: `  aidex resume --last
  aidex resume 20260301-101500-ab12 "now add the tests"
  aidex resume --last -p "summarise what we did"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if rf.cont || rf.resume != "" {
				return usageErr("aidex resume takes the session as its argument (an ID, or --last): drop -c/-r")
			}
			if !last && len(args) > 0 {
				rf.resume, args = args[0], args[1:]
			} else {
				rf.cont = true
			}
			first := strings.Join(args, " ")
			if first != "" && rf.prompt != "" {
				return usageErr("two prompts: pass the prompt either with -p or as an argument, not both")
			}
			return a.runRoot(cmd, &rf, first)
		},
	}
	addRunFlags(cmd, &rf)
	cmd.Flags().BoolVar(&last, "last", false, "resume the latest session of this workspace (aidex -c)")
	for _, name := range []string{"continue", "resume"} {
		_ = cmd.Flags().MarkHidden(name)
	}
	return cmd
}
