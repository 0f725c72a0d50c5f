// Package companion finds the programs installed beside aidex (aidex-chat,
// aidex-sandbox, aidex-nats): in the running executable's folder first,
// then on PATH, never the running executable itself under another name.
package companion

import (
	"os"
	"path/filepath"
	"runtime"
)

// Find returns the absolute path of the program name (".exe" is the
// caller's to add) installed with the executable exe: the file of that
// name in exe's folder (symlinks resolved), when it is a regular file,
// executable outside Windows and not exe itself; else what lookPath
// (exec.LookPath, which refuses relative PATH entries) finds, made
// absolute, unless it is exe itself. dir is exe's folder after symlinks
// ("" when exe is ""), for messages; ok is false when neither place has it.
func Find(exe, name string, lookPath func(string) (string, error)) (path, dir string, ok bool) {
	if exe != "" {
		if p, err := filepath.EvalSymlinks(exe); err == nil {
			exe = p
		}
		dir = filepath.Dir(exe)
		beside := filepath.Join(dir, name)
		if st, err := os.Stat(beside); err == nil && st.Mode().IsRegular() &&
			(runtime.GOOS == "windows" || st.Mode().Perm()&0o111 != 0) && !same(st, exe) {
			return beside, dir, true
		}
	}
	if p, err := lookPath(name); err == nil {
		if abs, err := filepath.Abs(p); err == nil {
			if st, err := os.Stat(abs); err != nil || !same(st, exe) {
				return abs, dir, true
			}
		}
	}
	return "", dir, false
}

// same reports whether st is the file at path exe.
func same(st os.FileInfo, exe string) bool {
	if exe == "" {
		return false
	}
	self, err := os.Stat(exe)
	return err == nil && os.SameFile(st, self)
}
