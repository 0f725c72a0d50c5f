// Package gitdir finds a work tree's git directories the one way every
// part of aidex uses (the permission policy, the sandbox, checkpoints,
// Ralph and the git aidex runs itself): the git dir, the common dir of a
// linked worktree, submodules' and nested repositories' git dirs, and the
// files in them that configure git or point it elsewhere.
//
// A ".git" pointer file ("gitdir: PATH") is followed only when its
// target points back at the work tree (a linked worktree's gitdir file,
// or a submodule's core.worktree): anyone who can write the work tree can
// write a pointer, but only the owner of the target can write the
// back-pointer, so a planted pointer never makes a folder outside the
// work tree count as its repository.
package gitdir

import (
	"bytes"
	"errors"
	"fmt"
	"unicode/utf8"
)

// MaxPointerSize is the largest ".git" pointer file read, in bytes: git
// itself writes one line.
const MaxPointerSize = 4096

// ErrNotPointer is wrapped by ParsePointer's errors.
var ErrNotPointer = errors.New("not a git pointer file")

// ParsePointer returns the path a ".git" pointer file's content b names
// ("gitdir: PATH", one line, optional trailing newline or CRLF), as
// written (relative paths are relative to the file's folder). Errors,
// wrapping ErrNotPointer: more than MaxPointerSize bytes, no "gitdir:"
// prefix, an empty path, invalid UTF-8, a NUL or another control
// character, or text after the first line.
func ParsePointer(b []byte) (string, error) {
	if len(b) > MaxPointerSize {
		return "", fmt.Errorf("%w: larger than %d bytes", ErrNotPointer, MaxPointerSize)
	}
	line, rest, _ := bytes.Cut(b, []byte("\n"))
	if len(bytes.TrimSpace(rest)) != 0 {
		return "", fmt.Errorf("%w: more than one line", ErrNotPointer)
	}
	line = bytes.TrimSuffix(line, []byte("\r"))
	p, ok := bytes.CutPrefix(line, []byte("gitdir:"))
	if !ok {
		return "", fmt.Errorf("%w: it does not start with \"gitdir:\"", ErrNotPointer)
	}
	p = bytes.TrimSpace(p)
	if len(p) == 0 {
		return "", fmt.Errorf("%w: the path is empty", ErrNotPointer)
	}
	if !utf8.Valid(p) {
		return "", fmt.Errorf("%w: the path is not UTF-8", ErrNotPointer)
	}
	for _, c := range p {
		if c < 0x20 || c == 0x7f {
			return "", fmt.Errorf("%w: the path holds a control character", ErrNotPointer)
		}
	}
	return string(p), nil
}
