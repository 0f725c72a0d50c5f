// Package ospath holds the path rules of each operating system family as
// values rather than build tags, so the code that names or compares paths
// runs the same on every OS and a test on Linux covers Windows and macOS
// forms: volume names (C:, \\server\share, \\?\C:), cleaning with each
// OS's separators, the file: URI SQLite needs for a path, and the key under
// which two spellings of one folder (c:\code\proj and C:\Code\Proj on
// Windows) compare equal.
package ospath

import (
	"net/url"
	"path"
	"runtime"
	"strings"
)

// Style is the path semantics of one operating system family. The zero
// value is Unix.
type Style uint8

const (
	// Unix: '/' separates, no volume names, names compare byte for byte.
	Unix Style = iota
	// Darwin: as Unix, but the default (APFS, HFS+) volumes compare names
	// without regard to case.
	Darwin
	// Windows: '\' and '/' separate, paths may start with a volume name
	// (C:, \\server\share, \\?\C:, \\.\UNC\server\share) and names compare
	// without regard to case.
	Windows
)

// Native returns the Style of the OS this program runs on.
func Native() Style { return For(runtime.GOOS) }

// For returns the Style of the GOOS value goos: Windows for "windows",
// Darwin for "darwin" and "ios", Unix for everything else.
func For(goos string) Style {
	switch goos {
	case "windows":
		return Windows
	case "darwin", "ios":
		return Darwin
	}
	return Unix
}

// String returns "unix", "darwin" or "windows".
func (s Style) String() string {
	switch s {
	case Windows:
		return "windows"
	case Darwin:
		return "darwin"
	}
	return "unix"
}

// FoldsCase reports whether the style's file systems treat names that
// differ only in case as one name (Windows, and macOS's default volumes).
func (s Style) FoldsCase() bool { return s == Windows || s == Darwin }

// Separator returns the style's canonical separator: '\' on Windows, '/'
// elsewhere.
func (s Style) Separator() byte {
	if s == Windows {
		return '\\'
	}
	return '/'
}

func (s Style) isSep(c byte) bool { return c == '/' || (s == Windows && c == '\\') }

// VolumeName returns the leading volume name of p on Windows ("C:",
// `\\server\share`, `\\?\C:`, `\\.\UNC\server\share`, as written) and ""
// for every other style or a path without one.
func (s Style) VolumeName(p string) string {
	if s != Windows {
		return ""
	}
	if len(p) >= 2 && p[1] == ':' && isLetter(p[0]) {
		return p[:2]
	}
	if len(p) < 3 || !s.isSep(p[0]) || !s.isSep(p[1]) || s.isSep(p[2]) {
		return "" // not \\x: at most a rooted path
	}
	// \\?\ and \\.\ : a device path; its volume is the next component
	// (C:, or a device name), or UNC\server\share.
	if len(p) >= 4 && (p[2] == '?' || p[2] == '.') && s.isSep(p[3]) {
		rest := p[4:]
		if len(rest) >= 4 && strings.EqualFold(rest[:3], "UNC") && s.isSep(rest[3]) {
			return p[:4+4+s.components(rest[4:], 2)]
		}
		return p[:4+s.components(rest, 1)]
	}
	// \\server\share
	n := s.components(p[2:], 2)
	return p[:2+n]
}

// components returns the length of the first n separator-separated
// components of p (the separators between them included, the one after the
// last excluded).
func (s Style) components(p string, n int) int {
	i := 0
	for k := 0; k < n; k++ {
		for i < len(p) && !s.isSep(p[i]) {
			i++
		}
		if k < n-1 {
			if i >= len(p) {
				return i
			}
			i++
		}
	}
	return i
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// IsAbs reports whether p is absolute: rooted at '/' on Unix and Darwin; on
// Windows, a drive letter followed by a separator, or a UNC or device path.
func (s Style) IsAbs(p string) bool {
	if s != Windows {
		return strings.HasPrefix(p, "/")
	}
	v := s.VolumeName(p)
	switch {
	case v == "":
		return false
	case len(v) == 2 && v[1] == ':':
		return len(p) > 2 && s.isSep(p[2])
	}
	return true
}

// Clean returns the shortest path naming the same file as p by lexical
// processing (path.Clean's rules), written with the style's separator;
// on Windows the volume name is kept, its separators made '\'.
func (s Style) Clean(p string) string {
	if s != Windows {
		return path.Clean(p)
	}
	vol := s.VolumeName(p)
	rest := strings.ReplaceAll(p[len(vol):], `\`, "/")
	vol = strings.ReplaceAll(vol, "/", `\`)
	if rest == "" && len(vol) > 2 {
		if strings.HasSuffix(vol, `\`) {
			return vol
		}
		return vol + `\` // a UNC or device volume is a root
	}
	return vol + strings.ReplaceAll(path.Clean(rest), "/", `\`)
}

// Key returns the form of the absolute path p under which every spelling
// of one folder compares equal in the style: Clean(p), and on styles that
// fold case, lower-cased (Unicode simple case folding, as NTFS and APFS
// compare names). Keys are for comparing and hashing, never for opening:
// keep the path as given for that and for display.
func (s Style) Key(p string) string {
	c := s.Clean(p)
	if s.FoldsCase() {
		c = strings.ToLower(c)
	}
	return c
}

// Same reports whether a and b name one folder in the style
// (Key(a) == Key(b)).
func (s Style) Same(a, b string) bool { return s.Key(a) == s.Key(b) }

// FileURL returns the file: URL of the absolute path p, every byte that
// needs it percent-escaped (spaces, '%', '#', '?'). A Windows drive path
// becomes file:///C:/dir (SQLite reads file://C:/dir as a URI whose
// authority is "C:") and a UNC path file:////server/share/dir, whose
// authority is empty.
func (s Style) FileURL(p string) *url.URL {
	if s == Windows {
		p = strings.ReplaceAll(p, `\`, "/")
		if !strings.HasPrefix(p, "/") {
			p = "/" + p
		}
	}
	return &url.URL{Scheme: "file", Path: p}
}
