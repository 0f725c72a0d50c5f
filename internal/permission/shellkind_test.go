package permission

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/ospath"
)

// winForm writes the host path h as Git for Windows' programs see it: on
// a Windows host as is, elsewhere drive C: standing for "/" (as
// windowsHostArg maps it).
func winForm(h string) string {
	if ospath.Native() == ospath.Windows {
		return h
	}
	return "C:" + strings.ReplaceAll(h, "/", `\`)
}

// msysForm writes h as an MSYS path (/c/dir/file).
func msysForm(h string) string {
	w := winForm(h)
	return "/" + strings.ToLower(w[:1]) + strings.ReplaceAll(w[2:], `\`, "/")
}

// rootedForm writes h rooted without a drive (\dir\file).
func rootedForm(h string) string { return winForm(h)[2:] }

// otherDrive is a drive that is not the workspace's.
func otherDrive(h string) string {
	if strings.EqualFold(winForm(h)[:2], "D:") {
		return "E:"
	}
	return "D:"
}

func newShellPolicy(t *testing.T, f fixture, mode Mode, sh Shell, rules ...Rule) *Policy {
	t.Helper()
	p, err := NewPolicy(PolicyConfig{Mode: mode, SafeMode: true, Workspace: f.ws(t, WorkspaceOptions{ExtraDirs: []string{f.extra}, Home: f.home}),
		CanAsk: true, Rules: rules, Shell: sh})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWindowsShPaths: with Git for Windows' sh, every Windows path form a
// program reads (backslashes, drive-rooted, /c/ MSYS, rooted without a
// drive, drive-relative, UNC and device paths, trailing dots, streams) is
// resolved and confined, in arguments, redirections, cd and option values.
func TestWindowsShPaths(t *testing.T) {
	f := newFixture(t)
	mustMkdir(t, filepath.Join(f.root, "src"))
	mustWrite(t, filepath.Join(f.root, "src", "a.txt"), "a")
	secret := filepath.Join(f.outside, "secret.txt")
	inside := filepath.Join(f.root, "src", "a.txt")
	q := func(s string) string { return "'" + s + "'" }
	cases := []struct {
		line string
		want Decision
	}{
		// inside the workspace: read-only commands run
		{"cat src/a.txt", Allow},
		{"cat " + q(`src\a.txt`), Allow},
		{`cat src\\a.txt`, Allow},
		{"cat " + q(winForm(inside)), Allow},
		{"cat " + q(strings.ReplaceAll(winForm(inside), `\`, "/")), Allow},
		{"cat " + msysForm(inside), Allow},
		{"cat " + q(rootedForm(inside)), Allow},
		{"cat " + q(`src.\a.txt. `), Allow},
		{"echo x > NUL", Allow},
		{"echo x > " + q(`src\nul.txt`), Allow},
		// outside it: reads ask, writes are denied
		{"cat " + q(`..\outside\secret.txt`), Ask},
		{`cat ..\\outside\\secret.txt`, Ask},
		{"cat " + q(`src\..\..\outside\secret.txt`), Ask},
		{"cat " + q(winForm(secret)), Ask},
		{"cat " + q(strings.ReplaceAll(winForm(secret), `\`, "/")), Ask},
		{"cat " + msysForm(secret), Ask},
		{"cat " + q(rootedForm(secret)), Ask},
		{"cat " + q(strings.ToUpper(winForm(secret)[:1])+":"+`..\outside\secret.txt`), Ask}, // drive-relative: the cwd's drive
		{"cat " + q(otherDrive(f.root)+`\x`), Ask},
		{"cat " + q(otherDrive(f.root)+`x`), Ask},
		{"cat " + q(`\\server\share\x`), Ask},
		{"cat " + q(`//server/share/x`), Ask},
		{"cat " + q(`\\?\`+winForm(secret)), Ask},
		{"cat " + q(`\\.\C:\x`), Ask},
		{"cat /etc/passwd", Ask},
		{"cat /", Ask},
		{"cat " + q(`..\outside\`) + "*", Ask},
		{"cat " + q(`src\..\..\outside\secret.txt:stream`), Ask},
		{"diff --from-file=" + q(`..\outside\secret.txt`) + " src/a.txt", Ask},
		{"cd " + q(`..\outside`) + " && cat secret.txt", Ask},
		{"git -C " + q(`..\outside`) + " status", Ask},
		{"echo x > " + q(`..\outside\y`), Deny},
		{"echo x > " + q(winForm(filepath.Join(f.outside, "y"))), Deny},
		{"echo x > " + msysForm(filepath.Join(f.outside, "y")), Deny},
		{"echo x > " + q(rootedForm(filepath.Join(f.outside, "y"))), Deny},
		// protected paths behind Windows name normalisation
		{"echo x > " + q(`.git.\hooks\pre-commit`), Ask},
		{"echo x > " + q(`.git::$INDEX_ALLOCATION\hooks\x`), Ask},
	}
	p := newShellPolicy(t, f, ModeAsk, Shell{Paths: ospath.Windows})
	for _, c := range cases {
		v := p.Check(execReq(c.line))
		if v.Decision != c.want {
			t.Errorf("%s: got %s (%s: %s), want %s", c.line, v.Decision, v.Rule, v.Reason, c.want)
		}
	}
}

// TestWindowsHostArg pins the conversion itself on a non-Windows host.
func TestWindowsHostArg(t *testing.T) {
	bases := []string{"/w/ws"}
	cases := []struct{ in, want, why string }{
		{`a\b`, "a/b", ""},
		{`..\x`, "../x", ""},
		{`C:\w\x`, "/w/x", ""},
		{`c:/w/x`, "/w/x", ""},
		{`/c/w/x`, "/w/x", ""},
		{`/C`, "/", ""},
		{`\w\x`, "/w/x", ""},
		{`C:x\y`, "x/y", ""},
		{`x.. \y. `, "x/y", ""},
		{`...\x`, "./x", ""},
		{`f.txt:zone`, "f.txt", ""},
		{`~\..\x`, "~/../x", ""},
		{`~`, "~", ""},
		{`~u\x`, `~u\x`, ""},
		{`D:\x`, "", "drive D:"},
		{`D:x`, "", "current folder of drive D:"},
		{`\\s\sh\x`, "", "network or device"},
		{`\\?\C:\x`, "", "network or device"},
		{`/usr/bin`, "", "MSYS"},
		{`/`, "", "MSYS root"},
	}
	for _, c := range cases {
		got, why := windowsHostArg(c.in, bases, ospath.Unix)
		if got != c.want || (c.why == "") != (why == "") || !strings.Contains(why, c.why) {
			t.Errorf("windowsHostArg(%q) = %q, %q; want %q, a reason with %q", c.in, got, why, c.want, c.why)
		}
	}
	// A rooted path takes the bases' drive; on two drives it is unknown.
	if _, why := windowsHostArg(`\x`, []string{`C:\a`, `D:\b`}, ospath.Windows); why == "" {
		t.Errorf(`\x from folders on C: and D: resolved; want a reason`)
	}
	if got, _ := windowsHostArg(`\x\..\y`, []string{`D:\a`}, ospath.Windows); got != `D:\y` {
		t.Errorf(`\x\..\y from D:\a = %q, want D:\y`, got)
	}
	if got, _ := windowsHostArg(`/d/x`, []string{`C:\a`}, ospath.Windows); got != `D:\x` {
		t.Errorf(`/d/x = %q, want D:\x`, got)
	}
}

// TestPowerShellNoBuiltinReadOnly: with PowerShell no line is read-only;
// rules match the line as written, deny first; plan mode denies.
func TestPowerShellNoBuiltinReadOnly(t *testing.T) {
	f := newFixture(t)
	ps := Shell{Kind: ShellPowerShell, Paths: ospath.Windows}
	allowGCI := rule(t, Allow, "run_command(Get-ChildItem src)")
	denyRm := rule(t, Deny, "run_command(*Remove-Item*)")
	allowAll := rule(t, Allow, "run_command(*)")
	cases := []struct {
		mode  Mode
		rules []Rule
		line  string
		want  Decision
	}{
		{ModeAsk, nil, "ls", Ask},
		{ModeAsk, nil, "cat inside.txt", Ask},
		{ModeAsk, nil, "git status", Ask},
		{ModeAsk, nil, `Get-Content ..\outside\secret.txt`, Ask},
		{ModePlan, nil, "ls", Deny},
		{ModePlan, nil, "Get-ChildItem", Deny},
		{ModeAsk, []Rule{allowGCI}, "Get-ChildItem src", Allow},
		{ModeAsk, []Rule{allowGCI}, "Get-ChildItem src; Remove-Item -Recurse C:\\", Ask},
		{ModeAsk, []Rule{allowAll, denyRm}, "Get-ChildItem; Remove-Item x", Deny},
		{ModeYolo, []Rule{denyRm}, "Remove-Item x", Deny},
		{ModeYolo, nil, "Remove-Item x", Allow},
		{ModeAsk, []Rule{allowAll}, "ls\rRemove-Item x", Ask},
		{ModeAsk, nil, "", Deny},
	}
	for _, c := range cases {
		p := newShellPolicy(t, f, c.mode, ps, c.rules...)
		v := p.Check(execReq(c.line))
		if v.Decision != c.want {
			t.Errorf("%s %q: got %s (%s: %s), want %s", c.mode, c.line, v.Decision, v.Rule, v.Reason, c.want)
		}
		if v.ReadsOnly {
			t.Errorf("%q: ReadsOnly set for a PowerShell line", c.line)
		}
	}
}

// refWindowsInside is an independent model of where a quoted argument
// lands for Git for Windows' programs run in root (a host path): the
// Windows path, resolved lexically, or ok false when it is not on the
// workspace's drive or is a form the model does not place.
func refWindowsInside(v, root string) bool {
	winRoot := winForm(root)
	abs, ok := refWindowsAbs(v, winRoot)
	if !ok {
		return false
	}
	var stack []string
	for _, c := range strings.Split(abs[2:], `\`) {
		if i := strings.IndexByte(c, ':'); i >= 0 {
			c = c[:i]
		}
		if c != "." && c != ".." {
			c = strings.TrimRight(c, ". ")
		}
		switch c {
		case "", ".":
		case "..":
			if len(stack) > 0 {
				stack = stack[:len(stack)-1]
			}
		default:
			stack = append(stack, c)
		}
	}
	got := strings.ToLower(strings.Join(stack, `\`))
	want := strings.ToLower(strings.TrimPrefix(winRoot[2:], `\`))
	return got == want || strings.HasPrefix(got, want+`\`)
}

// refWindowsAbs is the drive-rooted Windows path v names from winRoot,
// or ok false for a form the model does not place.
func refWindowsAbs(v, winRoot string) (string, bool) {
	w := strings.ReplaceAll(v, "/", `\`)
	switch {
	case strings.HasPrefix(v, "~"), strings.HasPrefix(w, `\\`):
		return "", false
	case len(v) >= 2 && v[0] == '/':
		if len(v) > 2 && v[2] != '/' && v[2] != '\\' || !isASCIILetter(v[1]) {
			return "", false
		}
		return strings.ToUpper(v[1:2]) + `:\` + w[min(3, len(w)):], true
	case len(w) >= 2 && w[1] == ':' && isASCIILetter(w[0]):
		if !strings.EqualFold(w[:2], winRoot[:2]) {
			return "", false
		}
		if len(w) > 2 && w[2] == '\\' {
			return w, true
		}
		return winRoot + `\` + w[2:], true
	case strings.HasPrefix(w, `\`):
		return winRoot[:2] + w, true
	}
	return winRoot + `\` + w, true
}

// FuzzWindowsShPaths: a quoted argument of a read-only command is allowed
// with Git for Windows' sh only when an independent model of Windows path
// resolution places it inside the workspace.
func FuzzWindowsShPaths(f *testing.F) {
	for _, s := range []string{`a\b`, `..\x`, `C:\x`, `/c/x`, `\x`, `C:..\x`, `\\s\s\x`, `/usr/x`, `x.\..\..`, `. .\..`,
		`~\x`, `a:b\..\..`, `src\..\..\outside`, `/C/`, `c:`, `\`, `...\..`} {
		f.Add(s)
	}
	fx := newFuzzFixture(f)
	w, err := NewWorkspace(fx.root, WorkspaceOptions{ExtraDirs: []string{fx.extra}, Home: fx.home})
	if err != nil {
		f.Fatal(err)
	}
	p, err := NewPolicy(PolicyConfig{Mode: ModeAsk, Workspace: w, CanAsk: true, Shell: Shell{Paths: ospath.Windows}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, v string) {
		if strings.ContainsAny(v, "'\x00*?[{$`\"\n") || v == "" || strings.HasPrefix(v, "-") {
			return
		}
		vd := p.Check(execReq("cat -- '" + v + "'"))
		if vd.Decision == Allow && !refWindowsInside(v, fx.root) {
			t.Fatalf("cat -- %q allowed (%s), but the argument is outside the workspace %s", v, vd.Reason, fx.root)
		}
	})
}
