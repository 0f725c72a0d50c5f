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

// downloaders are commands whose output is fetched from the network.
var downloaders = map[string]bool{
	"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true, "https": true, "xh": true,
	"lwp-request": true, "GET": true, "nc": true, "ncat": true, "netcat": true, "socat": true,
	"ftp": true, "tftp": true, "curlie": true,
}

// systemDirs are top-level directories whose recursive deletion or
// permission change breaks the machine.
var systemDirs = map[string]bool{
	"/": true, "/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true, "/lib": true,
	"/lib64": true, "/opt": true, "/proc": true, "/root": true, "/sbin": true, "/srv": true, "/sys": true,
	"/usr": true, "/var": true, "/Users": true, "/System": true, "/Library": true, "/Applications": true,
	"~": true, "/*": true, "~/*": true, "/home/*": true, "/Users/*": true,
}

// SafeModeCommand returns the safe_mode rule a simple command breaks, or "".
func SafeModeCommand(sc SimpleCommand, home string) string {
	if sc.NonLiteral {
		return downloadExec(sc)
	}
	if confusable(sc.Name) != "" {
		return SafeConfusable
	}
	base := foldConfusable(sc.Base())
	switch {
	case base == "rm":
		if hasRecursiveFlag(sc.Words[1:]) && anyDangerousTarget(sc.Words[1:], home) ||
			hasLiteral(sc.Words[1:], "--no-preserve-root") {
			return SafeRecursiveDelete
		}
	case base == "find":
		if hasLiteral(sc.Words[1:], "-delete") && anyDangerousTarget(findRoots(sc.Words[1:]), home) {
			return SafeRecursiveDelete
		}
	case strings.HasPrefix(base, "mkfs") || base == "mke2fs" || base == "mkswap" || base == "wipefs" ||
		base == "fdisk" || base == "sfdisk" || base == "cfdisk" || base == "parted" || base == "sgdisk":
		return SafeDiskFormat
	case base == "dd":
		for _, w := range sc.Words[1:] {
			if v, ok := strings.CutPrefix(w.Pattern, "of="); ok && isRawDevice(v) {
				return SafeRawDevice
			}
		}
	case base == "shred" || base == "blkdiscard":
		for _, w := range sc.Words[1:] {
			if isRawDevice(w.Pattern) {
				return SafeRawDevice
			}
		}
	case base == "chmod" || base == "chown" || base == "chgrp":
		if anyDangerousTarget(sc.Words[1:], home) && (hasRecursiveFlag(sc.Words[1:]) || hasRootTarget(sc.Words[1:])) {
			return SafeRecursiveChmod
		}
	case base == "sudo" || base == "su" || base == "doas" || base == "pkexec" || base == "sudoedit" || base == "run0":
		return SafePrivilege
	case base == "shutdown" || base == "reboot" || base == "halt" || base == "poweroff":
		return SafePower
	case base == "systemctl" || base == "loginctl":
		for _, a := range sc.Args {
			switch a {
			case "poweroff", "reboot", "halt", "kexec", "suspend", "hibernate":
				return SafePower
			}
		}
	case base == "init" || base == "telinit":
		if len(sc.Args) == 1 && (sc.Args[0] == "0" || sc.Args[0] == "6") {
			return SafePower
		}
	case base == "kill" || base == "pkill" || base == "killall":
		if base == "kill" && hasLiteral(sc.Words[1:], "-1") && len(sc.Args) >= 1 && sc.Args[len(sc.Args)-1] == "-1" {
			return SafeKillAll
		}
	case base == "git":
		if isForcePushToMain(sc.Args) {
			return SafeForcePush
		}
	case base == "nc" || base == "ncat" || base == "netcat":
		if hasAnyOption(sc.Args, []string{"-e", "-c", "--exec", "--sh-exec", "--lua-exec"}) {
			return SafeReverseShell
		}
	case base == "socat":
		for _, a := range sc.Args {
			la := strings.ToLower(a)
			if strings.HasPrefix(la, "exec:") || strings.HasPrefix(la, "system:") {
				return SafeReverseShell
			}
		}
	}
	return downloadExec(sc)
}

// downloadExec reports a shell or interpreter whose program comes from a
// download: "curl x | sh", "bash <(wget -O- x)", "sh -c "$(curl x)"",
// "eval "$(curl x)"", "source <(curl x)".
func downloadExec(sc SimpleCommand) string {
	base := foldConfusable(sc.Base())
	if !(isShellOrInterpreter(base) || base == "eval" || base == "source" || base == "." || base == "xargs") {
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
	for _, pfx := range [...]string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "mapper/", "loop", "sr", "nbd"} {
		if strings.HasPrefix(rest, pfx) {
			return true
		}
	}
	return rest == "mem" || rest == "kmem" || rest == "port"
}

// isForcePushToMain reports "git push" with --force/-f/--mirror/+refspec
// when the pushed ref is main/master or not named (the current branch).
// Decision: a force push to a named feature branch is not denied (it asks
// like every command); --force-with-lease counts as a force push.
func isForcePushToMain(args []string) bool {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") {
		if args[i] == "-C" || args[i] == "-c" {
			i++
		}
		i++
	}
	if i >= len(args) || args[i] != "push" {
		return false
	}
	rest := args[i+1:]
	force := false
	var operands []string
	for _, a := range rest {
		switch {
		case a == "--force" || a == "-f" || a == "--mirror" || strings.HasPrefix(a, "--force-with-lease") ||
			len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'f'):
			force = true
		case strings.HasPrefix(a, "-"):
		default:
			operands = append(operands, a)
			if strings.HasPrefix(a, "+") {
				force = true
			}
		}
	}
	if !force {
		return false
	}
	if len(operands) <= 1 {
		return true // no refspec: pushes the current branch, possibly main
	}
	for _, ref := range operands[1:] {
		ref = strings.TrimPrefix(ref, "+")
		if _, dst, ok := strings.Cut(ref, ":"); ok {
			ref = dst
		}
		ref = strings.TrimPrefix(ref, "refs/heads/")
		switch ref {
		case "main", "master", "trunk", "HEAD", "production", "release":
			return true
		}
	}
	return false
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
