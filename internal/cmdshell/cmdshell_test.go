package cmdshell

import (
	"errors"
	"io/fs"
	"reflect"
	"strings"
	"testing"
	"time"
)

type fakeFile struct{ dir bool }

func (f fakeFile) Name() string       { return "" }
func (f fakeFile) Size() int64        { return 0 }
func (f fakeFile) Mode() fs.FileMode  { return 0 }
func (f fakeFile) ModTime() time.Time { return time.Time{} }
func (f fakeFile) IsDir() bool        { return f.dir }
func (f fakeFile) Sys() any           { return nil }

// fakeEnv is a machine with the given files, PATH programs and variables.
func fakeEnv(goos string, vars map[string]string, onPath map[string]string, files ...string) Env {
	return Env{
		GOOS:   goos,
		Getenv: func(k string) string { return vars[k] },
		LookPath: func(name string) (string, error) {
			if p, ok := onPath[name]; ok {
				return p, nil
			}
			return "", errors.New("not found")
		},
		Stat: func(p string) (fs.FileInfo, error) {
			for _, f := range files {
				if strings.EqualFold(f, p) {
					return fakeFile{}, nil
				}
			}
			return nil, fs.ErrNotExist
		},
	}
}

func TestFindWindows(t *testing.T) {
	git := `C:\Program Files\Git`
	pf := map[string]string{"ProgramFiles": `C:\Program Files`}
	cases := []struct {
		name   string
		env    Env
		want   Shell
		errHas string
	}{
		{"sh on PATH", fakeEnv("windows", nil, map[string]string{"sh": git + `\usr\bin\sh.exe`, "powershell": `C:\ps.exe`}),
			Shell{POSIX, git + `\usr\bin\sh.exe`, true}, ""},
		{"only Git\\cmd on PATH", fakeEnv("windows", nil, map[string]string{"git": `D:\Tools\Git\cmd\git.exe`, "powershell": `C:\ps.exe`}, `D:\Tools\Git\bin\sh.exe`),
			Shell{POSIX, `D:\Tools\Git\bin\sh.exe`, true}, ""},
		{"git from mingw64\\bin", fakeEnv("windows", nil, map[string]string{"git": `D:\Git\mingw64\bin\git.exe`}, `D:\Git\usr\bin\sh.exe`),
			Shell{POSIX, `D:\Git\usr\bin\sh.exe`, true}, ""},
		{"default install folder", fakeEnv("windows", pf, map[string]string{"powershell": `C:\ps.exe`}, git+`\bin\sh.exe`),
			Shell{POSIX, git + `\bin\sh.exe`, true}, ""},
		{"per-user install", fakeEnv("windows", map[string]string{"LOCALAPPDATA": `C:\Users\u\AppData\Local`}, nil, `C:\Users\u\AppData\Local\Programs\Git\bin\sh.exe`),
			Shell{POSIX, `C:\Users\u\AppData\Local\Programs\Git\bin\sh.exe`, true}, ""},
		{"PowerShell", fakeEnv("windows", pf, map[string]string{"powershell": `C:\ps.exe`}),
			Shell{PowerShell, `C:\ps.exe`, true}, ""},
		{"PowerShell off PATH", fakeEnv("windows", map[string]string{"SystemRoot": `C:\Windows`}, nil, `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`),
			Shell{PowerShell, `C:\Windows\System32\WindowsPowerShell\v1.0\powershell.exe`, true}, ""},
		{"nothing", fakeEnv("windows", nil, nil), Shell{}, "Git for Windows"},
		{"unix $SHELL", fakeEnv("linux", map[string]string{"SHELL": "/bin/zsh"}, map[string]string{"sh": "/usr/bin/sh"}, "/bin/zsh"),
			Shell{POSIX, "/bin/zsh", false}, ""},
		{"unix fish", fakeEnv("linux", map[string]string{"SHELL": "/usr/bin/fish"}, map[string]string{"sh": "/usr/bin/sh"}, "/usr/bin/fish"),
			Shell{POSIX, "/usr/bin/sh", false}, ""},
		{"unix /bin/sh", fakeEnv("darwin", nil, nil, "/bin/sh"), Shell{POSIX, "/bin/sh", false}, ""},
		{"unix nothing", fakeEnv("linux", nil, nil), Shell{}, "/bin/sh"},
	}
	for _, c := range cases {
		got, err := Find(c.env)
		if c.errHas != "" {
			if !errors.Is(err, ErrNoShell) || !strings.Contains(err.Error(), c.errHas) {
				t.Errorf("%s: err %v, want ErrNoShell naming %q", c.name, err, c.errHas)
			}
			continue
		}
		if err != nil || got != c.want {
			t.Errorf("%s: Find = %+v, %v; want %+v", c.name, got, err, c.want)
		}
	}
}

func TestArgv(t *testing.T) {
	if got := (Shell{Kind: POSIX, Path: "/bin/sh"}).Argv("ls"); !reflect.DeepEqual(got, []string{"/bin/sh", "-c", "ls"}) {
		t.Errorf("sh argv %q", got)
	}
	if got := (Shell{Kind: PowerShell, Path: "ps"}).Argv("ls"); !reflect.DeepEqual(got, []string{"ps", "-NoProfile", "-NonInteractive", "-Command", "ls"}) {
		t.Errorf("powershell argv %q", got)
	}
	for _, s := range []Shell{{POSIX, "/bin/sh", false}, {POSIX, `C:\Git\bin\sh.exe`, true}, {PowerShell, `C:\ps.exe`, true}} {
		if d := s.Describe(); !strings.Contains(d, s.Path) {
			t.Errorf("Describe() = %q does not name %s", d, s.Path)
		}
	}
}
