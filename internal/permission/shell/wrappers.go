package shell

import (
	"path/filepath"
	"strings"
)

// skipSpec describes a wrapper's options: short options that take an
// argument (letters), long options that take an argument (without "--").
type skipSpec struct {
	short string
	long  []string
}

// Wrapper option tables (immutable).
var (
	specNohup   = skipSpec{}
	specTime    = skipSpec{short: "fo", long: []string{"format", "output"}}
	specNice    = skipSpec{short: "n", long: []string{"adjustment"}}
	specTimeout = skipSpec{short: "sk", long: []string{"signal", "kill-after"}}
	specEnv     = skipSpec{short: "uCS", long: []string{"unset", "chdir", "split-string", "argv0"}}
	specCommand = skipSpec{}
	specExec    = skipSpec{short: "a"}
	specSudo    = skipSpec{short: "ugCDhprtUTR", long: []string{"user", "group", "close-from", "chdir", "host", "prompt", "role", "type", "other-user", "command-timeout", "chroot"}}
	specDoas    = skipSpec{short: "uC"}
	specXargs   = skipSpec{short: "InLPsdEa", long: []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}}
	specStdbuf  = skipSpec{short: "ioe", long: []string{"input", "output", "error"}}
	specIonice  = skipSpec{short: "cnp", long: []string{"class", "classdata", "pid", "pgid", "uid"}}
	specSetsid  = skipSpec{}
	specWatch   = skipSpec{short: "nqd", long: []string{"interval", "differences", "equexit"}}
	specStrace  = skipSpec{short: "oesuEpPbaIX", long: []string{"output", "user", "env"}}
	specShell   = skipSpec{short: "oO", long: []string{"init-file", "rcfile"}}
)

// skipOptions returns the index of the first operand after the options in
// words[from:], or -1 when an option word is not literal (position unknown).
func skipOptions(words []Word, from int, spec skipSpec) int {
	i := from
	for i < len(words) {
		w := words[i]
		if !w.Literal {
			if strings.HasPrefix(w.Pattern, "-") {
				return -1
			}
			return i
		}
		v := w.Value
		if v == "--" {
			return i + 1
		}
		if len(v) < 2 || v[0] != '-' {
			return i
		}
		if strings.HasPrefix(v, "--") {
			name, _, hasVal := strings.Cut(v[2:], "=")
			i++
			if !hasVal && contains(spec.long, name) {
				i++
			}
			continue
		}
		i++
		for j := 1; j < len(v); j++ {
			if strings.IndexByte(spec.short, v[j]) >= 0 {
				if j == len(v)-1 {
					i++ // argument is the next word
				}
				break // the rest of this word is the argument
			}
		}
	}
	return i
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// unwrap handles wrappers; it reports whether sc was consumed.
func (z *analyzer) unwrap(sc SimpleCommand, c actx) bool {
	words := sc.Words
	base := foldConfusable(filepath.Base(words[0].Value))
	if sc.Suspicious {
		c.taint = sc.SuspiciousReason
	}
	rest := func(spec skipSpec, label string) bool {
		i := skipOptions(words, 1, spec)
		if i < 0 {
			z.opaque(label + " with non-literal options")
			sc.NonLiteral = true
			markSuspicious(&sc, label+" with non-literal options")
			z.add(sc, c)
			return true
		}
		if i >= len(words) {
			return false // the wrapper alone is the command
		}
		z.simple(words[i:], nested(c, label), sc.ArgCommands, nil)
		return true
	}
	switch base {
	case "nohup", "builtin", "busybox", "toybox", "unbuffer", "chronic":
		return rest(specNohup, base)
	case "time":
		return rest(specTime, base)
	case "nice":
		return rest(specNice, base)
	case "command":
		return rest(specCommand, base)
	case "exec":
		return rest(specExec, base)
	case "stdbuf":
		return rest(specStdbuf, base)
	case "ionice":
		return rest(specIonice, base)
	case "setsid":
		return rest(specSetsid, base)
	case "strace", "ltrace":
		return rest(specStrace, base)
	case "timeout":
		i := skipOptions(words, 1, specTimeout)
		if i < 0 || i+1 >= len(words) {
			return false
		}
		z.simple(words[i+1:], nested(c, base), sc.ArgCommands, nil)
		return true
	case "sudo", "doas":
		// Keep the wrapper itself as a command so the deny list sees it.
		spec := specSudo
		if base == "doas" {
			spec = specDoas
		}
		i := skipOptions(words, 1, spec)
		z.add(SimpleCommand{Words: words[:1], Suspicious: sc.Suspicious, SuspiciousReason: sc.SuspiciousReason}, c)
		if i > 0 && i < len(words) {
			z.simple(words[i:], nested(c, base), sc.ArgCommands, nil)
		}
		return true
	case "su":
		z.add(sc, c)
		for i := 1; i+1 < len(words); i++ {
			if words[i].Value == "-c" || words[i].Value == "--command" {
				z.shellString(words[i+1], nested(c, "su -c"))
			}
		}
		return true
	case "env":
		return z.unwrapEnv(sc, c)
	case "xargs":
		i := skipOptions(words, 1, specXargs)
		if i < 0 {
			return rest(specXargs, base)
		}
		if i >= len(words) {
			z.simple([]Word{literalWord("echo")}, nested(c, base), nil, nil)
			return true
		}
		z.simple(words[i:], nested(c, base), sc.ArgCommands, nil)
		return true
	case "watch":
		i := skipOptions(words, 1, specWatch)
		if i < 0 || i >= len(words) {
			return false
		}
		z.joinedShell(sc, words[i:], nested(c, "watch"))
		return true
	case "eval":
		if len(words) == 1 {
			return true
		}
		z.joinedShell(sc, words[1:], nested(c, "eval"))
		return true
	}
	if isShell(base) {
		return z.unwrapShell(sc, c, base)
	}
	return false
}

// joinedShell parses the words joined by spaces as a shell line (eval, watch).
func (z *analyzer) joinedShell(sc SimpleCommand, words []Word, c actx) {
	parts := make([]string, 0, len(words))
	for _, w := range words {
		if !w.Literal {
			z.opaque(sc.Words[0].Value + " of a non-literal string")
			markSuspicious(&sc, "runs a string built at run time")
			sc.InlineCode = true
			z.add(sc, c)
			return
		}
		parts = append(parts, w.Value)
	}
	z.parseAndWalk(strings.Join(parts, " "), c)
}

// shellString parses a literal shell-code word, or marks the line opaque.
func (z *analyzer) shellString(w Word, c actx) {
	if !w.Literal {
		z.opaque("shell code built at run time: " + w.Value)
		return
	}
	z.parseAndWalk(w.Value, c)
}

func (z *analyzer) unwrapShell(sc SimpleCommand, c actx, base string) bool {
	words := sc.Words
	for i := 1; i < len(words); i++ {
		w := words[i]
		if !w.Literal {
			break
		}
		v := w.Value
		if v == "--" || !strings.HasPrefix(v, "-") && !strings.HasPrefix(v, "+") {
			break
		}
		if strings.HasPrefix(v, "--") {
			if contains(specShell.long, strings.TrimPrefix(v, "--")) {
				i++
			}
			continue
		}
		if strings.ContainsAny(v[1:], "oO") && !strings.Contains(v[1:], "c") {
			i++
			continue
		}
		if !strings.Contains(v[1:], "c") {
			continue
		}
		if i+1 >= len(words) {
			return false
		}
		code := words[i+1]
		if !code.Literal {
			z.opaque(base + " -c with code built at run time")
			sc.InlineCode = true
			markSuspicious(&sc, base+" -c runs code built at run time")
			z.add(sc, c)
			return true
		}
		z.parseAndWalk(code.Value, nested(c, base+" -c"))
		return true
	}
	return false
}

func (z *analyzer) unwrapEnv(sc SimpleCommand, c actx) bool {
	words := sc.Words
	i := 1
	var dangerous []string
	for i < len(words) {
		w := words[i]
		if !w.Literal {
			if strings.HasPrefix(w.Pattern, "-") || strings.Contains(w.Pattern, "=") {
				z.opaque("env with non-literal options")
				sc.NonLiteral = true
				markSuspicious(&sc, "env with non-literal options")
				z.add(sc, c)
				return true
			}
			break
		}
		v := w.Value
		switch {
		case v == "--":
			i++
			continue
		case v == "-S" || v == "--split-string" || strings.HasPrefix(v, "--split-string=") ||
			strings.HasPrefix(v, "-S") && len(v) > 2:
			code, next := splitStringArg(words, i)
			rest := []string{code}
			for _, r := range words[next:] {
				if !r.Literal {
					z.opaque("env -S with non-literal arguments")
					return true
				}
				rest = append(rest, shellQuote(r.Value))
			}
			z.parseAndWalk(strings.Join(rest, " "), nested(c, "env -S"))
			return true
		case strings.HasPrefix(v, "-") && len(v) > 1:
			j := skipOptions(words[:i+1], i, specEnv)
			if j <= i {
				j = i + 1
			}
			i = j
			continue
		case strings.Contains(v, "=") && isName(v[:strings.IndexByte(v, '=')]):
			if n := v[:strings.IndexByte(v, '=')]; isDangerousEnv(n) {
				dangerous = append(dangerous, n)
			}
			i++
			continue
		}
		break
	}
	if i >= len(words) {
		return false // env alone prints the environment
	}
	z.simple(words[i:], nested(c, "env"), sc.ArgCommands, dangerous)
	return true
}

func splitStringArg(words []Word, i int) (string, int) {
	v := words[i].Value
	switch {
	case strings.HasPrefix(v, "--split-string="):
		return strings.TrimPrefix(v, "--split-string="), i + 1
	case strings.HasPrefix(v, "-S") && len(v) > 2:
		return v[2:], i + 1
	case i+1 < len(words):
		return words[i+1].Value, i + 2
	}
	return "", i + 1
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

func isShell(base string) bool {
	switch base {
	case "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "fish", "csh", "tcsh", "yash", "rbash":
		return true
	}
	return false
}

// isShellOrInterpreter reports programs that run code given to them.
func isShellOrInterpreter(base string) bool {
	if isShell(base) {
		return true
	}
	for _, p := range [...]string{"python", "pypy", "perl", "ruby", "php", "lua", "node", "nodejs", "deno", "bun",
		"tclsh", "wish", "osascript", "pwsh", "powershell", "Rscript", "julia", "awk", "gawk", "mawk", "nawk", "jshell", "groovy", "scala", "elixir", "erl", "irb"} {
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
			if strings.Contains(v, "system") || strings.Contains(v, "|") || strings.Contains(v, "getline") {
				return true
			}
		}
		return false
	}
	for _, w := range sc.Words[1:] {
		switch w.Value {
		case "-c", "-e", "-E", "-r", "-p", "--eval", "--print", "--command":
			return true
		}
	}
	return false
}

// isDangerousEnv reports variables that change which program runs or
// inject code into it.
func isDangerousEnv(name string) bool {
	switch name {
	case "PATH", "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "IFS", "PROMPT_COMMAND",
		"SHELLOPTS", "BASHOPTS", "PS4", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER",
		"GIT_EDITOR", "EDITOR", "VISUAL", "GIT_CONFIG", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM",
		"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXEC_PATH", "GIT_ASKPASS", "SSH_ASKPASS",
		"GIT_TEMPLATE_DIR", "GIT_DIR", "GIT_WORK_TREE", "NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME",
		"PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB", "LESSOPEN", "LESSCLOSE", "GOFLAGS", "CC", "CXX",
		"CGO_CFLAGS", "CGO_LDFLAGS", "MAKEFLAGS", "SHELL", "HOME", "ZDOTDIR", "XDG_CONFIG_HOME",
		"RIPGREP_CONFIG_PATH", "GIT_INDEX_FILE":
		return true
	}
	return strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "LD_") || strings.HasPrefix(name, "GIT_TRACE") ||
		strings.HasPrefix(name, "GIT_CONFIG_KEY_") || strings.HasPrefix(name, "GIT_CONFIG_VALUE_")
}

// gitExecKeys are git config keys whose value is a command git runs.
func isGitExecKey(key string) bool {
	k := strings.ToLower(key)
	switch k {
	case "core.pager", "core.editor", "core.sshcommand", "core.fsmonitor", "core.hookspath", "core.askpass",
		"sequence.editor", "diff.external", "credential.helper", "gpg.program", "uploadpack.packobjectshook",
		"core.gitproxy", "protocol.allow", "protocol.ext.allow", "include.path", "web.browser", "instaweb.httpd":
		return true
	}
	for _, pfx := range [...]string{"alias.", "pager.", "filter.", "diff.", "merge.", "credential.", "gpg.",
		"includeif.", "mergetool.", "difftool.", "browser.", "man.", "remote.", "url."} {
		if strings.HasPrefix(k, pfx) {
			return true
		}
	}
	return false
}

// innerCommands extracts commands embedded in a command's options:
// find -exec, go test -exec/-toolexec, rg --pre, git -c, vim -c :!cmd,
// tar --to-command, rsync -e, ssh -o ProxyCommand, script -c, flock -c.
func (z *analyzer) innerCommands(sc SimpleCommand, c actx) {
	if sc.NonLiteral {
		return
	}
	words := sc.Words
	base := foldConfusable(sc.Base())
	switch base {
	case "find":
		z.findExec(words, c)
	case "go":
		z.optionCode(words, c, "go -exec", []string{"-exec", "--exec", "-toolexec", "--toolexec", "-vettool", "--vettool"})
	case "rg":
		z.optionCode(words, c, "rg --pre", []string{"--pre"})
	case "tar", "gtar", "bsdtar":
		z.optionCode(words, c, "tar command", []string{"--to-command", "-I", "--use-compress-program", "--info-script", "-F", "--new-volume-script"})
		for _, w := range words[1:] {
			if v, ok := strings.CutPrefix(w.Value, "--checkpoint-action=exec="); ok && w.Literal {
				z.parseAndWalk(v, nested(c, "tar --checkpoint-action"))
			}
		}
	case "rsync":
		z.optionCode(words, c, "rsync -e", []string{"-e", "--rsh", "--rsync-path"})
	case "ssh", "scp", "sftp":
		for i := 1; i < len(words); i++ {
			v := words[i].Value
			if v == "-o" && i+1 < len(words) {
				i++
				v = words[i].Value
			} else if !strings.HasPrefix(v, "-o") {
				continue
			} else {
				v = v[2:]
			}
			if k, val, ok := strings.Cut(v, "="); ok && (strings.EqualFold(k, "ProxyCommand") || strings.EqualFold(k, "LocalCommand")) {
				z.parseAndWalk(val, nested(c, "ssh "+k))
			}
		}
	case "script", "flock":
		z.optionCode(words, c, base+" -c", []string{"-c", "--command"})
	case "vim", "vi", "nvim", "view", "ex", "vimdiff", "gvim":
		z.editorCommands(words, c)
	case "git":
		z.gitCommands(words, c)
	}
}

func (z *analyzer) findExec(words []Word, c actx) {
	for i := 1; i < len(words); i++ {
		switch words[i].Value {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(words) && words[j].Value != ";" && words[j].Value != "+" {
				j++
			}
			if j > i+1 {
				z.simple(words[i+1:j], nested(c, "find "+words[i].Value), nil, nil)
			}
			i = j
		}
	}
}

// optionCode parses the value of the given options as shell code.
func (z *analyzer) optionCode(words []Word, c actx, label string, opts []string) {
	for i := 1; i < len(words); i++ {
		w := words[i]
		for _, o := range opts {
			var code Word
			switch {
			case w.Value == o && i+1 < len(words):
				code = words[i+1]
			case strings.HasPrefix(w.Value, o+"=") && w.Literal:
				v := strings.TrimPrefix(w.Value, o+"=")
				code = literalWord(v)
			case !w.Literal && strings.HasPrefix(w.Pattern, o+"="):
				z.opaque(label + " with code built at run time")
				continue
			default:
				continue
			}
			z.shellString(code, nested(c, label))
		}
	}
}

func (z *analyzer) editorCommands(words []Word, c actx) {
	for i := 1; i < len(words); i++ {
		v := words[i].Value
		var cmd string
		switch {
		case (v == "-c" || v == "--cmd") && i+1 < len(words):
			cmd = words[i+1].Value
			i++
		case strings.HasPrefix(v, "+"):
			cmd = v[1:]
		default:
			continue
		}
		cmd = strings.TrimLeft(strings.TrimSpace(cmd), ":")
		if code, ok := strings.CutPrefix(cmd, "!"); ok {
			z.parseAndWalk(code, nested(c, "editor :!"))
		} else if strings.HasPrefix(cmd, "sh") || strings.HasPrefix(cmd, "term") || strings.HasPrefix(cmd, "r !") {
			z.opaque("editor runs a shell: " + cmd)
		}
	}
}

func (z *analyzer) gitCommands(words []Word, c actx) {
	for i := 1; i < len(words); i++ {
		w := words[i]
		v := w.Value
		switch {
		case v == "-c" && i+1 < len(words):
			z.gitConfig(words[i+1], c)
			i++
		case strings.HasPrefix(v, "-c") && len(v) > 2:
			z.gitConfig(literalWord(v[2:]), c)
		case v == "--config-env" || strings.HasPrefix(v, "--config-env="):
			z.opaque("git --config-env sets configuration from the environment")
		case strings.HasPrefix(v, "--upload-pack=") || strings.HasPrefix(v, "--receive-pack=") || strings.HasPrefix(v, "--exec="):
			_, code, _ := strings.Cut(v, "=")
			z.parseAndWalk(code, nested(c, "git "+v[:strings.IndexByte(v, '=')]))
		case (v == "--upload-pack" || v == "--receive-pack" || v == "-u") && i+1 < len(words):
			z.shellString(words[i+1], nested(c, "git "+v))
			i++
		case strings.HasPrefix(v, "ext::"):
			z.parseAndWalk(strings.TrimPrefix(v, "ext::"), nested(c, "git ext:: transport"))
		}
	}
}

func (z *analyzer) gitConfig(w Word, c actx) {
	if !w.Literal {
		z.opaque("git -c with a value built at run time")
		return
	}
	key, val, _ := strings.Cut(w.Value, "=")
	if !isGitExecKey(key) {
		return
	}
	z.opaque("git -c " + key + " can run a command")
	val = strings.TrimPrefix(strings.TrimSpace(val), "!")
	if val != "" {
		z.parseAndWalk(val, nested(c, "git -c "+key))
	}
}
