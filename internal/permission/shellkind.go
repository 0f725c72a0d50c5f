package permission

import (
	"fmt"
	"strings"

	"github.com/zelvior/aidex/internal/ospath"
)

// ShellKind is the language of the command lines the policy judges: the
// language of the shell run_command runs them in.
type ShellKind uint8

const (
	// ShellPOSIX: lines are POSIX sh (bash) syntax, judged on their
	// syntax tree (package shell).
	ShellPOSIX ShellKind = iota
	// ShellPowerShell: lines are PowerShell, which aidex does not
	// analyse. No command is read-only: every line asks (plan mode
	// denies it) unless a user rule allows it; rules match the line as
	// written, deny and ask rules first.
	ShellPowerShell
)

// String returns "sh" or "powershell".
func (k ShellKind) String() string {
	if k == ShellPowerShell {
		return "powershell"
	}
	return "sh"
}

// Shell describes the shell commands run in, as the policy needs it.
// The zero value is a POSIX sh reading the host's paths.
type Shell struct {
	// Kind is the shell's language.
	Kind ShellKind
	// Paths is how the programs the shell starts read path arguments.
	// ospath.Windows is Git for Windows' sh (MSYS2): '\' and '/' both
	// separate, "C:\x" and "C:/x" are drive-rooted, "/c/x" is drive C's
	// root, "\x" is the current drive's root, "/x" is below Git's own
	// install folder, "C:x" is relative to drive C's current folder,
	// trailing dots and spaces of a name are dropped, and "name:stream"
	// is a stream of the file name. Any other value: the host's POSIX
	// paths, as written. It is a parameter (not the host's GOOS) so that
	// the Windows semantics are tested on every OS.
	Paths ospath.Style
}

// hostArg turns v, a path argument as the shell's programs read it, into
// the path the host's file system calls take, relative when v is: with
// Windows path semantics every form above is resolved (on a non-Windows
// host, drive C: stands for the root "/", so the semantics are testable
// on Linux); why says what v names when it cannot be confined (another
// drive's current folder, a network or device path, an MSYS mount).
// bases are the folders the line may run in (host paths); a path rooted
// without a drive takes their drive, which must be one.
func (p *Policy) hostArg(v string, bases []string) (string, string) {
	if p.shell.Paths != ospath.Windows || v == "" {
		return v, ""
	}
	return windowsHostArg(v, bases, ospath.Native())
}

// windowsHostArg is hostArg with Windows semantics on a host of style
// host (ospath.Windows: the path is kept in Windows form; otherwise drive
// C: is the host's "/").
func windowsHostArg(v string, bases []string, host ospath.Style) (string, string) {
	if rest, ok := strings.CutPrefix(v, "~"); ok {
		return windowsHomeArg(v, rest, host)
	}
	if len(v) >= 2 && v[0] == '/' && v[1] != '/' && v[1] != '\\' {
		return msysArg(v, host)
	}
	if v == "/" {
		return "", "/ (the MSYS root, Git for Windows' install folder)"
	}
	w := strings.ReplaceAll(v, "/", `\`)
	vol := ospath.Windows.VolumeName(w)
	isDrive := len(vol) == 2 && vol[1] == ':'
	switch {
	case isDrive && len(w) > 2 && w[2] == '\\':
		return windowsAbs(w, host)
	case isDrive:
		if d, ok := basesVolume(bases, host); !ok || !strings.EqualFold(d, vol) {
			return "", v + " (relative to the current folder of drive " + strings.ToUpper(vol) + ", which aidex does not know)"
		}
		return toHostSeps(windowsRelative(w[2:]), host), ""
	case vol != "":
		return "", v + " (a network or device path)"
	case strings.HasPrefix(w, `\`):
		d, ok := basesVolume(bases, host)
		if !ok {
			return "", v + " (rooted on the current drive, and the line may run on more than one drive)"
		}
		return windowsAbs(d+w, host)
	}
	return toHostSeps(windowsRelative(w), host), ""
}

// windowsHomeArg converts "~" + rest: "~", "~/x" and "~\x" stay
// home-relative for the caller's ~ rules, with rest normalised; "~user"
// is left as written.
func windowsHomeArg(v, rest string, host ospath.Style) (string, string) {
	if rest != "" && rest[0] != '/' && rest[0] != '\\' {
		return v, ""
	}
	r := windowsRelative(strings.TrimLeft(rest, `/\`))
	if r == "" {
		return "~", ""
	}
	return "~/" + toHostSeps(r, host), ""
}

// msysArg converts the MSYS path v ("/x..."): /c and /c/... are drive C;
// every other /x is a mount of Git for Windows' own folders (/usr, /tmp,
// /etc), outside the workspace.
func msysArg(v string, host ospath.Style) (string, string) {
	if isASCIILetter(v[1]) && (len(v) == 2 || v[2] == '/' || v[2] == '\\') {
		return windowsAbs(strings.ToUpper(v[1:2])+`:\`+v[min(3, len(v)):], host)
	}
	return "", v + " (an MSYS path below Git for Windows' install folder)"
}

// windowsAbs turns the drive-rooted Windows path w into a host path:
// cleaned the way Windows normalises a path (".." lexically, trailing dots
// and spaces dropped, a ":stream" suffix naming its file).
func windowsAbs(w string, host ospath.Style) (string, string) {
	vol := w[:2]
	r := windowsRelative(w[3:])
	clean := ospath.Windows.Clean(strings.ToUpper(vol) + `\` + r)
	if host == ospath.Windows {
		return clean, ""
	}
	if !strings.EqualFold(vol, "C:") {
		return "", w + " (on drive " + strings.ToUpper(vol) + ", outside every folder aidex may use)"
	}
	return "/" + strings.ReplaceAll(strings.TrimLeft(clean[2:], `\`), `\`, "/"), ""
}

// windowsRelative normalises the components of the relative Windows path
// r ('\'-separated on return) as Windows opens them: trailing dots and
// spaces of a name are dropped ("..." and ".git." name "." and ".git"
// ... as "." and ".." stay), and "name:stream" names the file name.
func windowsRelative(r string) string {
	comps := strings.FieldsFunc(r, func(c rune) bool { return c == '\\' || c == '/' })
	out := comps[:0]
	for _, c := range comps {
		if c != "." && c != ".." {
			if i := strings.IndexByte(c, ':'); i >= 0 {
				c = c[:i]
			}
			c = strings.TrimRight(c, ". ")
			if c == "" {
				c = "." // a name of dots and spaces is the folder itself
			}
		}
		out = append(out, c)
	}
	return strings.Join(out, `\`)
}

// basesVolume returns the volume of the folders the line may run in, in
// Windows form ("C:" for a non-Windows host's "/"); ok is false when they
// are on more than one.
func basesVolume(bases []string, host ospath.Style) (string, bool) {
	vol := ""
	for i, b := range bases {
		v := "C:"
		if host == ospath.Windows {
			v = ospath.Windows.VolumeName(b)
		}
		if i > 0 && !strings.EqualFold(v, vol) {
			return "", false
		}
		vol = v
	}
	return vol, vol != ""
}

func toHostSeps(r string, host ospath.Style) string {
	if host == ospath.Windows {
		return r
	}
	return strings.ReplaceAll(r, `\`, "/")
}

func isASCIILetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// isWindowsNul reports the device NUL ("nul", "NUL.txt"), which Windows
// opens whatever folder it is written in: a harmless sink like /dev/null.
func isWindowsNul(v string) bool {
	base := v[strings.LastIndexAny(v, `/\`)+1:]
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	return strings.EqualFold(strings.TrimRight(base, " "), "nul") && !strings.ContainsAny(v, "*?[")
}

// checkPowerShell decides a PowerShell line, which aidex does not
// analyse: deny rules, then ask rules, then the mode (plan denies, yolo
// allows), then allow rules, all matched against the line as written;
// otherwise it asks. Nothing is read-only, and control characters always
// ask.
func (p *Policy) checkPowerShell(req Request, rules []Rule) Verdict {
	line := req.Command
	if _, v, ok := p.execBases(req.Paths); !ok {
		return v
	}
	shown := truncate(line, 200)
	mk := func(d Decision, rule, source, reason string) Verdict {
		return Verdict{Decision: d, Rule: rule, Source: source, Reason: reason,
			Commands: []CommandVerdict{{Command: shown, Decision: d, Rule: rule, Source: source, Reason: reason}}}
	}
	match := func(action Decision) *Rule {
		return firstRule(rules, action, CommandTool, func(r Rule) bool { return matchCommand(r.Pattern, line) })
	}
	if r := match(Deny); r != nil {
		return mk(Deny, r.String(), r.Source, fmt.Sprintf("the PowerShell line is denied by the rule %s (from %s)", r, r.Source))
	}
	if r := match(Ask); r != nil {
		return mk(Ask, r.String(), r.Source, fmt.Sprintf("the PowerShell line needs approval by the rule %s (from %s)", r, r.Source))
	}
	if ctrl := p.controlEntry(line); ctrl != nil {
		return mk(ctrl.Decision, ctrl.Rule, ctrl.Source, ctrl.Reason)
	}
	switch p.mode {
	case ModePlan:
		return mk(Deny, "mode plan", SourceBuiltin, "plan mode allows only read-only commands, and aidex does not analyse PowerShell, so no PowerShell line is read-only")
	case ModeYolo:
		return mk(Allow, "mode yolo", SourceBuiltin, "the line is allowed in yolo mode")
	}
	if r := match(Allow); r != nil {
		return mk(Allow, r.String(), r.Source, fmt.Sprintf("the PowerShell line is allowed by the rule %s (from %s)", r, r.Source))
	}
	return mk(Ask, RuleShellAnalysis, SourceBuiltin,
		"commands run in PowerShell, which aidex does not analyse: every line needs approval unless a rule allows it as written (install Git for Windows for sh and its analysis)")
}
