// Package cmdshell chooses the one shell every command of a session runs
// in — the model's run_command and background processes, the user's
// !command and hooks — so that the permission policy analyses the
// language that runs: a POSIX sh ($SHELL when it is one, else sh) on Unix;
// on Windows Git for Windows' sh (found on PATH, or next to git.exe when
// only Git\cmd is on PATH, or in Git's default install folders), else
// PowerShell, whose lines the policy does not analyse.
//
// The choice is a pure function of an Env (GOOS, environment, PATH
// lookup, file tests), so every platform's choice is tested on any OS.
package cmdshell

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"runtime"
	"slices"
	"strings"
)

// Kind is a shell's language.
type Kind uint8

const (
	// POSIX is sh (bash, dash, zsh, Git for Windows' MSYS2 sh): run as
	// "<path> -c <command>".
	POSIX Kind = iota
	// PowerShell is Windows PowerShell or pwsh: run as "<path> -NoProfile
	// -NonInteractive -Command <command>".
	PowerShell
)

// Shell is the shell commands run in.
type Shell struct {
	// Kind is the shell's language.
	Kind Kind
	// Path is the program, absolute when found by Find.
	Path string
	// WindowsPaths is set for a shell on Windows: its programs read
	// drive letters, '\' separators and (for sh) MSYS /c/ paths.
	WindowsPaths bool
}

// Argv returns the argv that runs command (a whole command line) in s.
func (s Shell) Argv(command string) []string {
	if s.Kind == PowerShell {
		return []string{s.Path, "-NoProfile", "-NonInteractive", "-Command", command}
	}
	return []string{s.Path, "-c", command}
}

// Describe returns the one-line description the system prompt and
// `aidex doctor`-style output show: "sh (/bin/bash)", "sh (Git for
// Windows: C:\Program Files\Git\bin\sh.exe): POSIX syntax, Windows paths",
// "PowerShell (C:\...\powershell.exe)".
func (s Shell) Describe() string {
	switch {
	case s.Kind == PowerShell:
		return "PowerShell (" + s.Path + "): write commands in PowerShell syntax"
	case s.WindowsPaths:
		return "sh (Git for Windows, " + s.Path + "): POSIX sh syntax; programs take Windows paths (C:\\x or /c/x)"
	}
	return "sh (" + s.Path + "): POSIX sh syntax"
}

// Env is what Find looks at. Zero fields take the running process's
// values (runtime.GOOS, os.Getenv, exec.LookPath, os.Stat).
type Env struct {
	// GOOS is the operating system ("windows", "linux", ...).
	GOOS string
	// Getenv returns an environment variable ("" when unset).
	Getenv func(string) string
	// LookPath finds a program on PATH, as exec.LookPath.
	LookPath func(string) (string, error)
	// Stat reports a file, as os.Stat.
	Stat func(string) (fs.FileInfo, error)
}

func (e Env) withDefaults() Env {
	if e.GOOS == "" {
		e.GOOS = runtime.GOOS
	}
	if e.Getenv == nil {
		e.Getenv = os.Getenv
	}
	if e.LookPath == nil {
		e.LookPath = exec.LookPath
	}
	if e.Stat == nil {
		e.Stat = os.Stat
	}
	return e
}

// ErrNoShell is returned by Find when no shell is installed.
var ErrNoShell = errors.New("no shell found")

// posixShells are the $SHELL values used as is; any other login shell
// (fish, tcsh, nu) is replaced by sh, since commands are written (and
// checked by the permission policy) as POSIX/bash syntax.
var posixShells = [...]string{"sh", "bash", "zsh", "dash", "ksh", "mksh", "ash"}

// Find returns the shell commands run in on e's platform, or an error
// wrapping ErrNoShell that says what to install.
func Find(e Env) (Shell, error) {
	e = e.withDefaults()
	if e.GOOS == "windows" {
		return findWindows(e)
	}
	if sh := e.Getenv("SHELL"); strings.HasPrefix(sh, "/") && slices.Contains(posixShells[:], path.Base(sh)) && e.isFile(sh) {
		return Shell{Kind: POSIX, Path: sh}, nil
	}
	if sh, err := e.LookPath("sh"); err == nil {
		return Shell{Kind: POSIX, Path: sh}, nil
	}
	if e.isFile("/bin/sh") {
		return Shell{Kind: POSIX, Path: "/bin/sh"}, nil
	}
	return Shell{}, errors.Join(ErrNoShell, errors.New("neither $SHELL, sh on PATH nor /bin/sh exists"))
}

func (e Env) isFile(p string) bool {
	fi, err := e.Stat(p)
	return err == nil && !fi.IsDir()
}

// findWindows: sh on PATH; sh next to git.exe on PATH (Git\cmd,
// Git\bin, Git\mingw64\bin); sh in Git's default install folders;
// then PowerShell.
func findWindows(e Env) (Shell, error) {
	if sh, err := e.LookPath("sh"); err == nil {
		return Shell{Kind: POSIX, Path: sh, WindowsPaths: true}, nil
	}
	var roots []string
	if git, err := e.LookPath("git"); err == nil {
		dir := winDir(git) // ...\Git\cmd or ...\Git\mingw64\bin
		roots = append(roots, winDir(dir), winDir(winDir(dir)))
	}
	for _, v := range []string{"ProgramW6432", "ProgramFiles", "ProgramFiles(x86)"} {
		if d := e.Getenv(v); d != "" {
			roots = append(roots, d+`\Git`)
		}
	}
	if d := e.Getenv("LOCALAPPDATA"); d != "" {
		roots = append(roots, d+`\Programs\Git`)
	}
	for _, r := range roots {
		for _, rel := range []string{`\bin\sh.exe`, `\usr\bin\sh.exe`} {
			if p := strings.TrimRight(r, `\/`) + rel; e.isFile(p) {
				return Shell{Kind: POSIX, Path: p, WindowsPaths: true}, nil
			}
		}
	}
	for _, name := range []string{"powershell", "pwsh"} {
		if p, err := e.LookPath(name); err == nil {
			return Shell{Kind: PowerShell, Path: p, WindowsPaths: true}, nil
		}
	}
	if d := e.Getenv("SystemRoot"); d != "" {
		if p := d + `\System32\WindowsPowerShell\v1.0\powershell.exe`; e.isFile(p) {
			return Shell{Kind: PowerShell, Path: p, WindowsPaths: true}, nil
		}
	}
	return Shell{}, errors.Join(ErrNoShell, errors.New("install Git for Windows (its sh runs commands) or PowerShell"))
}

// winDir is the folder of the Windows path p (either separator).
func winDir(p string) string {
	p = strings.TrimRight(p, `\/`)
	if i := strings.LastIndexAny(p, `\/`); i >= 0 {
		return p[:i]
	}
	return p
}
