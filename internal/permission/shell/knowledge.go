package shell

import "strings"

// Command knowledge tables used by the analysis and the safe-mode rules.
var (
	// shells run the code given with -c or read from standard input.
	shells = set("sh bash zsh dash ksh mksh ash fish csh tcsh yash rbash")
	// interpreters run code given inline or on standard input; a version
	// suffix is accepted ("python3.12", "ruby3").
	interpreters = [...]string{"python", "pypy", "perl", "ruby", "php", "lua", "node", "nodejs", "deno", "bun",
		"tclsh", "wish", "osascript", "pwsh", "powershell", "Rscript", "julia", "awk", "gawk", "mawk", "nawk",
		"jshell", "groovy", "scala", "elixir", "erl", "irb"}
	// inlineCodeFlags give an interpreter its program on the command line.
	inlineCodeFlags = set("-c -e -E -r -p --eval --print --command")
	// downloaders are commands whose output is fetched from the network.
	downloaders = set("curl wget fetch aria2c http https xh lwp-request GET nc ncat netcat socat ftp tftp curlie")
	// networkCommands reach the network besides the downloaders.
	networkCommands = set("ping ping6 nslookup dig host traceroute tracepath whois ssh scp sftp rsync telnet mail " +
		"sendmail mosh drill resolvectl")
	// interactiveEscapes are pagers and editors that can run shell commands.
	interactiveEscapes = set("less more most man vim vi nvim view ex gvim vimdiff nano emacs pico ed top htop pg")
	// dangerousEnv are variables that change which program runs or inject
	// code into it; dangerousEnvPrefixes are whole families of them.
	dangerousEnv = set("PATH LD_PRELOAD LD_LIBRARY_PATH LD_AUDIT BASH_ENV ENV IFS PROMPT_COMMAND SHELLOPTS BASHOPTS " +
		"PS4 GIT_SSH GIT_SSH_COMMAND GIT_EXTERNAL_DIFF GIT_PAGER PAGER GIT_EDITOR EDITOR VISUAL GIT_CONFIG " +
		"GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_EXEC_PATH GIT_ASKPASS " +
		"SSH_ASKPASS GIT_TEMPLATE_DIR GIT_DIR GIT_WORK_TREE NODE_OPTIONS PYTHONSTARTUP PYTHONPATH PYTHONHOME " +
		"PERL5OPT PERL5LIB PERLLIB RUBYOPT RUBYLIB LESSOPEN LESSCLOSE GOFLAGS CC CXX CGO_CFLAGS CGO_LDFLAGS " +
		"MAKEFLAGS SHELL HOME ZDOTDIR XDG_CONFIG_HOME RIPGREP_CONFIG_PATH GIT_INDEX_FILE")
	dangerousEnvPrefixes = [...]string{"DYLD_", "LD_", "GIT_TRACE", "GIT_CONFIG_KEY_", "GIT_CONFIG_VALUE_"}
	// gitExecKeys are git config keys (lower case) whose value is a
	// command git runs; gitExecKeyPrefixes are sections of them.
	gitExecKeys = set("core.pager core.editor core.sshcommand core.fsmonitor core.hookspath core.askpass " +
		"sequence.editor diff.external credential.helper gpg.program uploadpack.packobjectshook core.gitproxy " +
		"protocol.allow protocol.ext.allow include.path web.browser instaweb.httpd")
	gitExecKeyPrefixes = [...]string{"alias.", "pager.", "filter.", "diff.", "merge.", "credential.", "gpg.",
		"includeif.", "mergetool.", "difftool.", "browser.", "man.", "remote.", "url."}
)

// set makes a lookup table from space-separated words.
func set(words string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(words) {
		m[w] = true
	}
	return m
}

// IsInterpreter reports shells and interpreters, which run whatever code
// they are given ("python3", "bash", "node", "awk", ...).
func IsInterpreter(base string) bool { return isShellOrInterpreter(base) }

// IsDownloader reports commands whose output comes from the network
// (curl, wget, nc, ...).
func IsDownloader(base string) bool { return downloaders[base] }

// MentionsInlineCode reports whether text (a command or the literal part
// of a rule pattern) contains an inline-code option as a separate word
// ("python3 -c", "node -e") or awk's "system(" or "ENVIRON": a rule "python3 *" does
// not allow "python3 -c CODE", whose code is opaque, but "python3 -c *"
// does.
func MentionsInlineCode(text string) bool {
	if strings.Contains(text, "system(") || strings.Contains(text, "ENVIRON") {
		return true
	}
	for f := range inlineCodeFlags {
		if strings.Contains(text, " "+f) {
			return true
		}
	}
	return false
}

func isShell(base string) bool { return shells[base] }

// isShellOrInterpreter reports programs that run code given to them.
func isShellOrInterpreter(base string) bool {
	if shells[base] {
		return true
	}
	for _, p := range interpreters {
		if base == p || strings.HasPrefix(base, p) && isVersionSuffix(base[len(p):]) {
			return true
		}
	}
	return false
}

func isVersionSuffix(s string) bool {
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r == '.') {
			return false
		}
	}
	return true
}

// isNetworkCommand reports commands that reach the network.
func isNetworkCommand(base string) bool { return downloaders[base] || networkCommands[base] }

// isInteractiveEscape reports pagers and editors with shell escapes.
func isInteractiveEscape(base string) bool { return interactiveEscapes[base] }

// isDangerousEnv reports variables that change which program runs or
// inject code into it.
func isDangerousEnv(name string) bool {
	return dangerousEnv[name] || hasAnyPrefix(name, dangerousEnvPrefixes[:])
}

// isGitExecKey reports git config keys whose value is a command git runs.
func isGitExecKey(key string) bool {
	k := strings.ToLower(key)
	return gitExecKeys[k] || hasAnyPrefix(k, gitExecKeyPrefixes[:])
}

func hasAnyPrefix(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

func hasExpansionArg(sc SimpleCommand) bool {
	for _, w := range sc.Words[1:] {
		if !w.Literal {
			return true
		}
	}
	return false
}

// readsProgramFromStdin reports an interpreter with no program argument.
func readsProgramFromStdin(sc SimpleCommand) bool {
	for _, w := range sc.Words[1:] {
		if !w.Literal {
			return false
		}
		switch v := w.Value; {
		case v == "-" || v == "-s" || v == "/dev/stdin":
			return true
		case strings.HasPrefix(v, "-"):
			if strings.ContainsAny(v, "ecrEpf") && len(v) == 2 {
				return false // -c/-e/-r code or -f file
			}
			continue
		default:
			return false
		}
	}
	return true
}

// hasInlineCode reports an interpreter running a program given inline.
func hasInlineCode(sc SimpleCommand) bool {
	base := sc.Base()
	if !isShellOrInterpreter(base) {
		return false
	}
	if strings.HasSuffix(base, "awk") {
		for _, w := range sc.Words[1:] {
			v := w.Pattern
			if strings.Contains(v, "system") || strings.Contains(v, "|") || strings.Contains(v, "getline") ||
				strings.Contains(v, "ENVIRON") {
				return true
			}
		}
		return false
	}
	for _, w := range sc.Words[1:] {
		if inlineCodeFlags[w.Value] {
			return true
		}
	}
	return false
}
