package shell

import (
	"path"
	"strings"
)

// Safe-mode rule names (shown in verdicts as "safe_mode: <name>").
const (
	SafeRecursiveDelete = "recursive delete of / or the home directory"
	SafeDiskFormat      = "formatting a disk (mkfs, wipefs, fdisk)"
	SafeRawDevice       = "writing to a raw disk device"
	SafeForkBomb        = "fork bomb (a function that calls itself through a pipe or in the background)"
	SafeRecursiveChmod  = "recursive chmod/chown of / or the home directory"
	SafeDownloadExec    = "running a download as code (curl/wget piped into a shell or interpreter)"
	SafePrivilege       = "privilege escalation (sudo, su, doas, pkexec)"
	SafePower           = "shutting down or rebooting the machine"
	SafeForcePush       = "force push to main/master (or to an unnamed branch)"
	SafeNetRedirect     = "bash network redirection (/dev/tcp, /dev/udp)"
	SafeConfusable      = "command name with invisible or look-alike characters"
	SafeReverseShell    = "reverse shell (nc -e, socat exec)"
	SafeKillAll         = "killing every process (kill -1)"
)

// systemDirs are top-level directories whose recursive deletion or
// permission change breaks the machine.
var systemDirs = map[string]bool{
	"/": true, "/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true, "/lib": true,
	"/lib64": true, "/opt": true, "/proc": true, "/root": true, "/sbin": true, "/srv": true, "/sys": true,
	"/usr": true, "/var": true, "/Users": true, "/System": true, "/Library": true, "/Applications": true,
	"~": true, "/*": true, "~/*": true, "/home/*": true, "/Users/*": true,
}

// safeRule is the safe_mode rule one command can break, and when it does
// (when nil: always).
type safeRule struct {
	rule string
	when func(sc SimpleCommand, home string) bool
}

// safeModeCommands maps a command (its base name, folded to ASCII) to the
// safe_mode rule it can break.
var safeModeCommands = map[string]safeRule{
	"rm":         {SafeRecursiveDelete, deletesSystemDir},
	"find":       {SafeRecursiveDelete, findDeletesSystemDir},
	"mke2fs":     {SafeDiskFormat, nil},
	"mkswap":     {SafeDiskFormat, nil},
	"wipefs":     {SafeDiskFormat, nil},
	"fdisk":      {SafeDiskFormat, nil},
	"sfdisk":     {SafeDiskFormat, nil},
	"cfdisk":     {SafeDiskFormat, nil},
	"parted":     {SafeDiskFormat, nil},
	"sgdisk":     {SafeDiskFormat, nil},
	"dd":         {SafeRawDevice, writesRawDevice},
	"shred":      {SafeRawDevice, namesRawDevice},
	"blkdiscard": {SafeRawDevice, namesRawDevice},
	"chmod":      {SafeRecursiveChmod, changesSystemDir},
	"chown":      {SafeRecursiveChmod, changesSystemDir},
	"chgrp":      {SafeRecursiveChmod, changesSystemDir},
	"sudo":       {SafePrivilege, nil},
	"su":         {SafePrivilege, nil},
	"doas":       {SafePrivilege, nil},
	"pkexec":     {SafePrivilege, nil},
	"sudoedit":   {SafePrivilege, nil},
	"run0":       {SafePrivilege, nil},
	"shutdown":   {SafePower, nil},
	"reboot":     {SafePower, nil},
	"halt":       {SafePower, nil},
	"poweroff":   {SafePower, nil},
	"systemctl":  {SafePower, anyArg("poweroff", "reboot", "halt", "kexec", "suspend", "hibernate")},
	"loginctl":   {SafePower, anyArg("poweroff", "reboot", "halt", "kexec", "suspend", "hibernate")},
	"init":       {SafePower, onlyArg("0", "6")},
	"telinit":    {SafePower, onlyArg("0", "6")},
	"kill":       {SafeKillAll, killsEveryProcess},
	"git":        {SafeForcePush, forcePushesMain},
	"nc":         {SafeReverseShell, anyOption("-e", "-c", "--exec", "--sh-exec", "--lua-exec")},
	"ncat":       {SafeReverseShell, anyOption("-e", "-c", "--exec", "--sh-exec", "--lua-exec")},
	"netcat":     {SafeReverseShell, anyOption("-e", "-c", "--exec", "--sh-exec", "--lua-exec")},
	"socat":      {SafeReverseShell, argPrefixFold("exec:", "system:")},
}

// safeModePrefixes are command-name prefixes with a safe_mode rule
// (mkfs.ext4, mkfs.vfat, ...).
var safeModePrefixes = []struct {
	prefix string
	safeRule
}{
	{"mkfs", safeRule{SafeDiskFormat, nil}},
}

// SafeModeCommand returns the safe_mode rule sc breaks, or "": home is the
// user's home directory (its deletion is refused like ~'s). A command name
// with invisible or look-alike characters breaks SafeConfusable; the rest
// is in the safeModeCommands table, then the download-as-code check.
func SafeModeCommand(sc SimpleCommand, home string) string {
	if sc.NonLiteral {
		return downloadExec(sc)
	}
	if confusable(sc.Name) != "" {
		return SafeConfusable
	}
	if r, ok := safeRuleFor(sc.FoldedBase()); ok && (r.when == nil || r.when(sc, home)) {
		return r.rule
	}
	return downloadExec(sc)
}

func safeRuleFor(base string) (safeRule, bool) {
	if r, ok := safeModeCommands[base]; ok {
		return r, true
	}
	for _, p := range safeModePrefixes {
		if strings.HasPrefix(base, p.prefix) {
			return p.safeRule, true
		}
	}
	return safeRule{}, false
}

// deletesSystemDir: rm -r of /, ~, $HOME or a top-level system directory,
// or rm --no-preserve-root.
func deletesSystemDir(sc SimpleCommand, home string) bool {
	args := sc.Words[1:]
	return hasRecursiveFlag(args) && anyDangerousTarget(args, home) || hasLiteral(args, "--no-preserve-root")
}

// findDeletesSystemDir: find -delete starting at a system directory.
func findDeletesSystemDir(sc SimpleCommand, home string) bool {
	args := sc.Words[1:]
	return hasLiteral(args, "-delete") && anyDangerousTarget(findRoots(args), home)
}

// changesSystemDir: chmod/chown/chgrp -R of a system directory, or of /.
func changesSystemDir(sc SimpleCommand, home string) bool {
	args := sc.Words[1:]
	return anyDangerousTarget(args, home) && (hasRecursiveFlag(args) || hasRootTarget(args))
}

// writesRawDevice: dd of=/dev/sda.
func writesRawDevice(sc SimpleCommand, _ string) bool {
	for _, w := range sc.Words[1:] {
		if v, ok := strings.CutPrefix(w.Pattern, "of="); ok && isRawDevice(v) {
			return true
		}
	}
	return false
}

// namesRawDevice: an argument is a raw disk device (shred /dev/sda).
func namesRawDevice(sc SimpleCommand, _ string) bool {
	for _, w := range sc.Words[1:] {
		if isRawDevice(w.Pattern) {
			return true
		}
	}
	return false
}

// killsEveryProcess: kill -1 as the last argument (kill -9 -1).
func killsEveryProcess(sc SimpleCommand, _ string) bool {
	return hasLiteral(sc.Words[1:], "-1") && len(sc.Args) >= 1 && sc.Args[len(sc.Args)-1] == "-1"
}

// forcePushesMain: see isForcePushToMain.
func forcePushesMain(sc SimpleCommand, _ string) bool { return isForcePushToMain(sc.Args) }

// anyArg returns a condition: one argument is one of values.
func anyArg(values ...string) func(SimpleCommand, string) bool {
	return func(sc SimpleCommand, _ string) bool {
		for _, a := range sc.Args {
			if contains(values, a) {
				return true
			}
		}
		return false
	}
}

// onlyArg returns a condition: the single argument is one of values.
func onlyArg(values ...string) func(SimpleCommand, string) bool {
	return func(sc SimpleCommand, _ string) bool { return len(sc.Args) == 1 && contains(values, sc.Args[0]) }
}

// anyOption returns a condition: one of opts is given (see hasAnyOption).
func anyOption(opts ...string) func(SimpleCommand, string) bool {
	return func(sc SimpleCommand, _ string) bool { return hasAnyOption(sc.Args, opts) }
}

// argPrefixFold returns a condition: an argument starts with one of the
// lower-case prefixes, ignoring case (socat EXEC:/bin/sh).
func argPrefixFold(prefixes ...string) func(SimpleCommand, string) bool {
	return func(sc SimpleCommand, _ string) bool {
		for _, a := range sc.Args {
			la := strings.ToLower(a)
			for _, p := range prefixes {
				if strings.HasPrefix(la, p) {
					return true
				}
			}
		}
		return false
	}
}

// codeRunners run their input or arguments as code, besides shells and
// interpreters.
var codeRunners = map[string]bool{"eval": true, "source": true, ".": true, "xargs": true}

// downloadExec reports a shell or interpreter whose program comes from a
// download: "curl x | sh", "bash <(wget -O- x)", "sh -c "$(curl x)"",
// "eval "$(curl x)"", "source <(curl x)".
func downloadExec(sc SimpleCommand) string {
	base := sc.FoldedBase()
	if !isShellOrInterpreter(base) && !codeRunners[base] {
		return ""
	}
	for _, p := range sc.PipedFrom {
		if downloaders[foldConfusable(p)] {
			return SafeDownloadExec
		}
	}
	for _, p := range sc.ArgCommands {
		if downloaders[foldConfusable(p)] {
			return SafeDownloadExec
		}
	}
	return ""
}

// SafeModeLine returns line-level safe_mode rules broken by the analysis.
func SafeModeLine(a Analysis) string {
	switch {
	case a.ForkBomb:
		return SafeForkBomb
	case len(a.NetRedirects) > 0:
		return SafeNetRedirect
	}
	for _, w := range a.Writes {
		if isRawDevice(w.Word.Pattern) {
			return SafeRawDevice
		}
	}
	return ""
}

func hasLiteral(words []Word, s string) bool {
	for _, w := range words {
		if w.Literal && w.Value == s {
			return true
		}
	}
	return false
}

// hasRecursiveFlag reports -r, -R, --recursive, or a short-option cluster
// containing r or R ("-rf", "-fR").
func hasRecursiveFlag(words []Word) bool {
	for _, w := range words {
		v := w.Pattern
		if v == "--" {
			return false
		}
		if v == "--recursive" {
			return true
		}
		if len(v) > 1 && v[0] == '-' && v[1] != '-' && strings.ContainsAny(v[1:], "rR") {
			return true
		}
	}
	return false
}

// hasRootTarget reports an operand that is exactly "/".
func hasRootTarget(words []Word) bool {
	for _, w := range words {
		if path.Clean(w.Pattern) == "/" {
			return true
		}
	}
	return false
}

// anyDangerousTarget reports an operand naming /, ~, $HOME, /* or a
// top-level system directory (after cleaning: "//", "/.", "~/" count).
func anyDangerousTarget(words []Word, home string) bool {
	for _, w := range words {
		p := w.Pattern
		if strings.HasPrefix(p, "-") && p != "-" {
			continue
		}
		if isDangerousPath(p, home) {
			return true
		}
	}
	return false
}

func isDangerousPath(p, home string) bool {
	if p == "" || p == "*" {
		return false // "*" is a glob over the current directory, not / or ~
	}
	const homeMark = "/\x00home"
	if strings.HasPrefix(p, "~") {
		p = homeMark + p[1:]
	}
	c := path.Clean(p)
	if c == homeMark || c == homeMark+"/*" || systemDirs[c] {
		return true
	}
	if home != "" && (c == path.Clean(home) || c == path.Clean(home)+"/*") {
		return true
	}
	// "/*"-style globs and other single-component absolute paths with globs.
	return strings.HasPrefix(c, "/") && strings.Count(c, "/") == 1 && strings.ContainsAny(c, "*?[")
}

// findRoots returns find's starting points (operands before the expression).
func findRoots(words []Word) []Word {
	var out []Word
	for _, w := range words {
		v := w.Pattern
		if strings.HasPrefix(v, "-") || v == "(" || v == "!" {
			break
		}
		out = append(out, w)
	}
	return out
}

// isRawDevice reports a block device path (/dev/sda, /dev/nvme0n1, ...).
func isRawDevice(p string) bool {
	c := path.Clean(p)
	rest, ok := strings.CutPrefix(c, "/dev/")
	if !ok {
		return false
	}
	for _, pfx := range rawDevicePrefixes {
		if strings.HasPrefix(rest, pfx) {
			return true
		}
	}
	return rawDevices[rest]
}

// rawDevicePrefixes name block devices under /dev; rawDevices are the
// memory and I/O port devices.
var (
	rawDevicePrefixes = [...]string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/",
		"loop", "sr", "nbd"}
	rawDevices = map[string]bool{"mem": true, "kmem": true, "port": true}
)

// forcePushOptions are git push options that force ("-f" also inside a
// cluster such as "-fu"; "--force-with-lease" with or without a value).
var forcePushOptions = map[string]bool{"--force": true, "-f": true, "--mirror": true, "--force-with-lease": true}

// protectedBranches are the refs a force push must not rewrite.
var protectedBranches = map[string]bool{
	"main": true, "master": true, "trunk": true, "HEAD": true, "production": true, "release": true,
}

// isForcePushToMain reports "git push" with --force/-f/--mirror/+refspec
// when the pushed ref is main/master or not named (the current branch).
// Decision: a force push to a named feature branch is not denied (it asks
// like every command); --force-with-lease counts as a force push.
func isForcePushToMain(args []string) bool {
	rest, ok := gitSubcommandArgs(args, "push")
	if !ok {
		return false
	}
	force := false
	var operands []string
	for _, a := range rest {
		name, _, _ := strings.Cut(a, "=")
		switch {
		case forcePushOptions[name] || len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'f'):
			force = true
		case strings.HasPrefix(a, "-"):
		default:
			operands = append(operands, a)
			force = force || strings.HasPrefix(a, "+")
		}
	}
	if !force {
		return false
	}
	if len(operands) <= 1 {
		return true // no refspec: pushes the current branch, possibly main
	}
	for _, ref := range operands[1:] {
		if protectedBranches[pushedRef(ref)] {
			return true
		}
	}
	return false
}

// gitSubcommandArgs skips git's global options (-C and -c take a value)
// and returns the arguments of the subcommand sub, if it is the one run.
func gitSubcommandArgs(args []string, sub string) ([]string, bool) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-C" || args[i] == "-c" {
			i++
		}
		i++
	}
	if i >= len(args) || args[i] != sub {
		return nil, false
	}
	return args[i+1:], true
}

// pushedRef returns the destination branch of a refspec ("+a:refs/heads/main" → "main").
func pushedRef(ref string) string {
	ref = strings.TrimPrefix(ref, "+")
	if _, dst, ok := strings.Cut(ref, ":"); ok {
		ref = dst
	}
	return strings.TrimPrefix(ref, "refs/heads/")
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
