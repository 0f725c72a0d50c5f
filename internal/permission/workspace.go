package permission

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"unicode"

	"github.com/zelvior/aidex/internal/ospath"
)

// Sentinel errors wrapped by *PathError. Test with errors.Is.
var (
	// ErrOutsideWorkspace: the path (after resolving symlinks) lies outside
	// the workspace root and every directory the user granted.
	ErrOutsideWorkspace = errors.New("outside the workspace")
	// ErrProtected: the path is a credential or process-information location
	// (~/.ssh, ~/.aws, /proc/self, ...) that is refused unless the user
	// granted that location itself.
	ErrProtected = errors.New("protected path")
	// ErrInvalidPath: the path is empty, contains a NUL byte, or uses a
	// Windows-style trick (alternate data stream, reserved device name,
	// trailing dot or space, bidirectional control character).
	ErrInvalidPath = errors.New("invalid path")
)

// Rule names used in PathError.Rule.
const (
	RuleConfinement = "workspace confinement"
	RuleProtected   = "protected path"
	RuleInvalidPath = "path validation"
)

// maxSymlinkHops bounds symlink resolution (Linux uses 40 for ELOOP).
const maxSymlinkHops = 40

// PathError is the error returned by Workspace.Resolve. Path is the path as
// the caller (usually the model) gave it; Reason completes the sentence
// "<Path> <Reason>" and names the boundary and the fix; Rule names the check
// that refused it (RuleConfinement, RuleProtected or RuleInvalidPath); Err is
// ErrOutsideWorkspace, ErrProtected or ErrInvalidPath.
type PathError struct {
	// Path is the path as the caller gave it.
	Path string
	// Reason completes "<Path> <Reason>" and names the fix.
	Reason string
	// Rule is RuleConfinement, RuleProtected or RuleInvalidPath.
	Rule string
	// Err is ErrOutsideWorkspace, ErrProtected or ErrInvalidPath.
	Err error
}

// Error returns e.g. `"../x" is outside the workspace /tmp/ws: file tools are
// confined to the workspace; ask the user to add a directory with --add-dir`.
func (e *PathError) Error() string { return fmt.Sprintf("%q %s", e.Path, e.Reason) }

// Unwrap returns the sentinel (ErrOutsideWorkspace, ErrProtected, ErrInvalidPath).
func (e *PathError) Unwrap() error { return e.Err }

// WorkspaceOptions configures NewWorkspace.
type WorkspaceOptions struct {
	// ExtraDirs are directories the user granted (--add-dir, allowed_dirs in
	// config); never set them from model output. They must exist.
	ExtraDirs []string
	// Unconfined disables confinement (config confine = false): every path
	// except the always-refused protected paths resolves.
	Unconfined bool
	// Home is the user's home directory, used for the protected paths
	// (~/.ssh, ~/.aws, ...). Empty disables the home-relative checks.
	Home string
	// ConfigFiles are aidex's own config files or directories (global
	// config, credentials store). Writes to them always ask (IsProtectedWrite).
	ConfigFiles []string
}

// Workspace confines file paths to a root directory plus granted directories.
// It is immutable after NewWorkspace and safe for concurrent use.
//
// Paths are never expanded: "~", "$HOME", "$VAR" and "%2e" are literal file
// name characters, so "~/.bashrc" names the file ".bashrc" in a directory
// called "~" inside the workspace.
type Workspace struct {
	root        string
	extra       []string
	unconfined  bool
	home        string
	configFiles []string
	// longName returns the long name of an existing path whose
	// components may be 8.3 short names (GIT~1 for .git): Windows'
	// GetLongPathName; nil where there are no short names.
	longName func(string) (string, error)
}

// NewWorkspace returns a Workspace rooted at root (made absolute, symlinks
// resolved). root and every ExtraDir must exist and be directories; the
// error names the offending directory.
func NewWorkspace(root string, opts WorkspaceOptions) (*Workspace, error) {
	r, err := canonicalDir(root)
	if err != nil {
		return nil, fmt.Errorf("workspace root: %w", err)
	}
	w := &Workspace{root: r, unconfined: opts.Unconfined, longName: platformLongName}
	for _, d := range opts.ExtraDirs {
		c, err := canonicalDir(d)
		if err != nil {
			return nil, fmt.Errorf("added directory (--add-dir / allowed_dirs): %w", err)
		}
		w.extra = append(w.extra, c)
	}
	if opts.Home != "" {
		w.home = canonicalMaybe(opts.Home)
	}
	for _, f := range opts.ConfigFiles {
		if f != "" {
			w.configFiles = append(w.configFiles, canonicalMaybe(f))
		}
	}
	return w, nil
}

func canonicalDir(d string) (string, error) {
	if d == "" {
		return "", errors.New("empty directory path; give an existing directory")
	}
	if strings.ContainsRune(d, 0) {
		return "", fmt.Errorf("directory %q contains a NUL byte", d)
	}
	abs, err := filepath.Abs(d)
	if err != nil {
		return "", fmt.Errorf("directory %q: %w", d, err)
	}
	res, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("directory %q: %w", d, err)
	}
	fi, err := os.Stat(res)
	if err != nil {
		return "", fmt.Errorf("directory %q: %w", d, err)
	}
	if !fi.IsDir() {
		return "", fmt.Errorf("%q is not a directory", d)
	}
	return res, nil
}

// canonicalMaybe makes p absolute and resolves symlinks when it exists.
func canonicalMaybe(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Clean(p)
	}
	if res, err := filepath.EvalSymlinks(abs); err == nil {
		return res
	}
	return abs
}

// Root returns the absolute workspace root with symlinks resolved.
func (w *Workspace) Root() string { return w.root }

// ExtraDirs returns a copy of the granted directories (absolute, resolved).
func (w *Workspace) ExtraDirs() []string { return append([]string(nil), w.extra...) }

// Unconfined reports whether confinement is off.
func (w *Workspace) Unconfined() bool { return w.unconfined }

// Rel returns abs relative to the root for display ("." for the root
// itself, slash-separated); a path outside the root is returned unchanged.
func (w *Workspace) Rel(abs string) string {
	if !within(w.root, abs) {
		return abs
	}
	rel, err := filepath.Rel(w.root, filepath.Clean(abs))
	if err != nil {
		return abs
	}
	return filepath.ToSlash(rel)
}

// Contains reports whether the absolute path abs lies (lexically, by path
// components) inside the root or a granted directory. With Unconfined every
// path is contained. It does not resolve symlinks; use Resolve for that.
func (w *Workspace) Contains(abs string) bool {
	if w.unconfined {
		return true
	}
	return w.inAllowed(abs)
}

func (w *Workspace) inAllowed(abs string) bool {
	if within(w.root, abs) {
		return true
	}
	for _, d := range w.extra {
		if within(d, abs) {
			return true
		}
	}
	return false
}

// Resolve turns a path given by the model into an absolute path with
// symlinks resolved, or refuses it with a *PathError.
//
// A relative p is joined to the root; an absolute p must resolve inside the
// root or a granted directory. The joined path is cleaned, then symlinks are
// resolved component by component: a missing final part is fine (the longest
// existing prefix is resolved), but a symlink inside the workspace that leads
// outside it, dangling or not, is refused. Containment compares path
// components, never string prefixes. No "~", "$VAR" or %-decoding is done.
// Protected paths (see isProtectedRead) are refused even when Unconfined.
func (w *Workspace) Resolve(p string) (string, error) {
	if err := validatePath(p); err != nil {
		return "", err
	}
	return w.resolve(p)
}

// resolve is Resolve without the Windows-style name checks; p must not be
// empty or contain NUL. Shell arguments use it ("host:path" is common).
func (w *Workspace) resolve(p string) (string, error) {
	joined := filepath.Clean(joinRoot(ospath.Native(), w.root, p))
	if perr := w.checkProtected(p, joined); perr != nil {
		return "", perr
	}
	resolved, err := w.evalSymlinks(p, joined)
	if err != nil {
		return "", err
	}
	if perr := w.checkProtected(p, resolved); perr != nil {
		return "", perr
	}
	if !w.unconfined && !w.inAllowed(resolved) {
		return "", w.outsideError(p, resolved, joined)
	}
	return resolved, nil
}

func (w *Workspace) outsideError(p, resolved, joined string) *PathError {
	where := ""
	if resolved != joined {
		where = fmt.Sprintf(" (it resolves to %s)", resolved)
	}
	return &PathError{
		Path: p,
		Reason: fmt.Sprintf("is outside the workspace %s%s: file tools are confined to the workspace; "+
			"ask the user to add a directory with --add-dir", w.root, where),
		Rule: RuleConfinement,
		Err:  ErrOutsideWorkspace,
	}
}

// evalSymlinks resolves abs (absolute, clean) component by component.
func (w *Workspace) evalSymlinks(orig, abs string) (string, error) {
	hops := 0
	return w.walk(orig, abs, &hops)
}

func (w *Workspace) walk(orig, abs string, hops *int) (string, error) {
	vol := filepath.VolumeName(abs)
	rest := abs[len(vol):]
	cur := vol + string(filepath.Separator)
	parts := splitComponents(rest)
	for i, comp := range parts {
		next, err := w.longComponent(orig, filepath.Join(cur, comp))
		if err != nil {
			return "", err
		}
		fi, err := os.Lstat(next)
		if err != nil {
			// Missing (or unreadable / not a directory): the rest is lexical.
			return filepath.Join(append([]string{cur}, parts[i:]...)...), nil
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		*hops++
		if *hops > maxSymlinkHops {
			return "", &PathError{Path: orig, Reason: "has too many levels of symbolic links; use a direct path",
				Rule: RuleInvalidPath, Err: ErrInvalidPath}
		}
		target, err := os.Readlink(next)
		if err != nil {
			return "", &PathError{Path: orig, Reason: fmt.Sprintf("cannot read symlink %s: %v", next, err),
				Rule: RuleInvalidPath, Err: ErrInvalidPath}
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(cur, target)
		}
		resolvedTarget, err := w.walk(orig, filepath.Clean(target), hops)
		if err != nil {
			return "", err
		}
		if !w.unconfined && w.inAllowed(cur) && !w.inAllowed(resolvedTarget) {
			return "", &PathError{
				Path: orig,
				Reason: fmt.Sprintf("goes through the symlink %s which points to %s, outside the workspace %s: "+
					"file tools are confined to the workspace and do not follow symlinks out of it; "+
					"ask the user to add the target directory with --add-dir", w.Rel(next), resolvedTarget, w.root),
				Rule: RuleConfinement,
				Err:  ErrOutsideWorkspace,
			}
		}
		cur = resolvedTarget
	}
	return cur, nil
}

// longComponent returns next (cur joined with one component) with that
// component written as its long name, so that an 8.3 short name (GIT~1,
// a hashed _GIT~IBP) is judged as the entry it names (.git). A component
// with a '~' that names an existing entry whose long name cannot be read
// is refused.
func (w *Workspace) longComponent(orig, next string) (string, error) {
	if w.longName == nil {
		return next, nil
	}
	long, err := w.longName(next)
	if err == nil {
		return filepath.Join(filepath.Dir(next), filepath.Base(long)), nil
	}
	if _, serr := os.Lstat(next); serr == nil && strings.ContainsRune(filepath.Base(next), '~') {
		return "", &PathError{Path: orig, Reason: fmt.Sprintf("has the component %q, which may be an 8.3 short name of another entry, and its long name cannot be read (%v): use the long name",
			filepath.Base(next), err), Rule: RuleInvalidPath, Err: ErrInvalidPath}
	}
	return next, nil
}

// joinRoot joins p to the workspace root as the OS opens it from there:
// an absolute p is itself; on Windows a p rooted without a drive
// (\code\x) is on the root's drive, and a drive-relative p (D:x) is
// below that drive's root (its current folder is aidex's own, not the
// model's to choose, so the most confining reading is taken); otherwise
// p is below root.
func joinRoot(style ospath.Style, root, p string) string {
	if style.IsAbs(p) {
		return p
	}
	if style == ospath.Windows {
		vol := style.VolumeName(p)
		switch {
		case len(vol) == 2 && vol[1] == ':':
			return vol + `\` + p[2:]
		case vol == "" && p != "" && (p[0] == '\\' || p[0] == '/'):
			return style.VolumeName(root) + p
		}
		return root + `\` + p
	}
	return root + "/" + p
}

func splitComponents(p string) []string {
	var out []string
	for _, c := range strings.FieldsFunc(p, isSep) {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}

func isSep(r rune) bool { return r == '/' || r == filepath.Separator }

// within reports whether p equals dir or lies below it, comparing cleaned
// path components (case-insensitively on Windows and macOS).
func within(dir, p string) bool {
	if dir == "" || p == "" {
		return false
	}
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	if err != nil {
		return false
	}
	if rel == "." {
		return true
	}
	if rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		if caseInsensitiveFS() {
			return withinFold(dir, p)
		}
		return false
	}
	return true
}

func withinFold(dir, p string) bool {
	d := splitComponents(filepath.Clean(dir))
	q := splitComponents(filepath.Clean(p))
	if len(q) < len(d) || !strings.EqualFold(filepath.VolumeName(dir), filepath.VolumeName(p)) {
		return false
	}
	for i := range d {
		if !strings.EqualFold(d[i], q[i]) {
			return false
		}
	}
	return true
}

func caseInsensitiveFS() bool { return runtime.GOOS == "windows" || runtime.GOOS == "darwin" }

// validatePath rejects empty paths, NUL bytes and Windows-style tricks on
// every OS: alternate data streams ("a:b"), reserved device names ("CON",
// "nul.txt"), components ending in a dot or space (".git."), and
// bidirectional control characters ("\u202etxt.exe").
func validatePath(p string) error {
	bad := func(why string) error {
		return &PathError{Path: p, Reason: why, Rule: RuleInvalidPath, Err: ErrInvalidPath}
	}
	if p == "" {
		return bad("is empty: give a file path relative to the workspace root")
	}
	if strings.ContainsRune(p, 0) {
		return bad("contains a NUL byte: file names cannot contain NUL")
	}
	rest := p[len(filepath.VolumeName(p)):]
	for _, c := range strings.FieldsFunc(rest, func(r rune) bool { return r == '/' || r == '\\' }) {
		if c == "." || c == ".." {
			continue
		}
		if why := badComponent(c); why != "" {
			return bad(why)
		}
	}
	return nil
}

func badComponent(c string) string {
	if strings.ContainsRune(c, ':') {
		return fmt.Sprintf("has a ':' in %q (an NTFS alternate data stream or drive letter): use a plain file name", c)
	}
	if last := c[len(c)-1]; last == '.' || last == ' ' {
		return fmt.Sprintf("has the component %q ending in a dot or space, which Windows strips: remove it", c)
	}
	for _, r := range c {
		if isBidiControl(r) {
			return fmt.Sprintf("contains the invisible control character %U in %q: use a plain file name", r, c)
		}
		if unicode.IsControl(r) {
			return fmt.Sprintf("contains the control character %U: use a plain file name", r)
		}
	}
	if isReservedDeviceName(c) {
		return fmt.Sprintf("uses the reserved Windows device name %q: choose another file name", c)
	}
	return ""
}

func isBidiControl(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069,
		r == 0x200E, r == 0x200F, r == 0x061C:
		return true
	}
	return false
}

func isReservedDeviceName(c string) bool {
	base := c
	if i := strings.IndexByte(base, '.'); i >= 0 {
		base = base[:i]
	}
	base = strings.ToUpper(strings.TrimRight(base, " "))
	switch base {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$":
		return true
	}
	if len(base) == 4 && (strings.HasPrefix(base, "COM") || strings.HasPrefix(base, "LPT")) {
		d := base[3]
		return d >= '0' && d <= '9'
	}
	return false
}
