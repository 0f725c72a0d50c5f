package ospath

import (
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestVolumeName(t *testing.T) {
	cases := []struct{ p, want string }{
		{`C:\Users\a`, `C:`},
		{`c:`, `c:`},
		{`C:rel`, `C:`},
		{`\\server\share\x`, `\\server\share`},
		{`//server/share/x`, `//server/share`},
		{`\\server\share`, `\\server\share`},
		{`\\?\C:\x`, `\\?\C:`},
		{`\\.\C:\x`, `\\.\C:`},
		{`\\?\UNC\server\share\x`, `\\?\UNC\server\share`},
		{`\x`, ``},
		{`x\y`, ``},
		{`1:\x`, ``},
	}
	for _, c := range cases {
		require.Equal(t, c.want, Windows.VolumeName(c.p), c.p)
		require.Empty(t, Unix.VolumeName(c.p), c.p)
		require.Empty(t, Darwin.VolumeName(c.p), c.p)
	}
}

func TestIsAbs(t *testing.T) {
	for p, want := range map[string]bool{
		`C:\x`: true, `C:/x`: true, `C:x`: false, `C:`: false, `\x`: false,
		`\\server\share\x`: true, `\\?\C:\x`: true, `x`: false, `/x`: false,
	} {
		require.Equal(t, want, Windows.IsAbs(p), p)
	}
	require.True(t, Unix.IsAbs("/x"))
	require.False(t, Unix.IsAbs(`C:\x`))
}

func TestClean(t *testing.T) {
	for p, want := range map[string]string{
		`C:\Users\a\..\b\.\c\`:  `C:\Users\b\c`,
		`C:/Users//a/`:          `C:\Users\a`,
		`C:\..\..`:              `C:\`,
		`\\server\share\x\..\y`: `\\server\share\y`,
		`//server/share/x`:      `\\server\share\x`,
		`\\server\share`:        `\\server\share\`,
		`\\?\C:\a\.\b`:          `\\?\C:\a\b`,
		`a\..\..\b`:             `..\b`,
	} {
		require.Equal(t, want, Windows.Clean(p), p)
	}
	require.Equal(t, `/a/b\c`, Unix.Clean(`/a/./b\c/`))
}

// TestKey: the spellings of one folder share a key; different folders do
// not; case matters only where the OS says so.
func TestKey(t *testing.T) {
	same := map[Style][][]string{
		Windows: {
			{`c:\code\proj`, `C:\Code\Proj`, `C:/CODE/PROJ/`, `C:\code\x\..\proj`},
			{`\\Server\Share\Ä`, `\\server\share\ä\`, `//SERVER/SHARE/Ä`},
		},
		Darwin: {{"/Users/a/Code/Proj", "/users/a/code/proj/", "/Users/a/./Code/x/../Proj"}},
		Unix:   {{"/home/a/proj", "/home/a/proj/", "/home/a/x/../proj", "//home/a/proj"}},
	}
	for st, groups := range same {
		for _, g := range groups {
			for _, p := range g[1:] {
				require.True(t, st.Same(g[0], p), "%s: %q and %q are one folder", st, g[0], p)
			}
		}
	}
	differ := map[Style][][2]string{
		Windows: {{`C:\code\proj`, `D:\code\proj`}, {`C:\code\proj`, `C:\code\proj2`}, {`\\a\s\x`, `\\b\s\x`}},
		Darwin:  {{"/Users/a/proj", "/Users/a/proj2"}},
		Unix:    {{"/home/a/Proj", "/home/a/proj"}, {`/home/a\b`, "/home/a/b"}},
	}
	for st, pairs := range differ {
		for _, pr := range pairs {
			require.False(t, st.Same(pr[0], pr[1]), "%s: %q and %q differ", st, pr[0], pr[1])
		}
	}
}

// TestNativeMatchesFilepath: on the OS running the test, Style's Clean and
// VolumeName agree with path/filepath for ordinary absolute paths.
func TestNativeMatchesFilepath(t *testing.T) {
	require.Equal(t, For(runtime.GOOS), Native())
	st := Native()
	paths := []string{"/a/b/../c/", "/x/./y"}
	if st == Windows {
		paths = []string{`C:\a\b\..\c\`, `C:/x/./y`, `\\srv\share\a\..\b`}
	}
	for _, p := range paths {
		require.Equal(t, filepath.Clean(p), st.Clean(p), p)
		require.Equal(t, filepath.VolumeName(p), st.VolumeName(p), p)
		require.Equal(t, filepath.IsAbs(p), st.IsAbs(p), p)
	}
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{`C:\a\..\b`, `\\s\h\x`, `\\?\UNC\s\h`, "/a/b", `..\..`, `C:`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		for _, st := range []Style{Unix, Darwin, Windows} {
			c := st.Clean(p)
			if st.Clean(c) != c {
				t.Fatalf("%s: Clean not idempotent: %q -> %q -> %q", st, p, c, st.Clean(c))
			}
			if st.Key(c) != st.Key(p) {
				t.Fatalf("%s: Key(%q) != Key(Clean)", st, p)
			}
		}
	})
}
