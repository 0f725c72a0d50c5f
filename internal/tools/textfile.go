package tools

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
)

// Size limits of the file tools.
const (
	// MaxReadBytes: read and edit tools refuse files larger than this
	// (32 MiB); grep skips them.
	MaxReadBytes = 32 << 20
	// MaxWriteBytes: write tools refuse to write more than this (16 MiB)
	// in one call.
	MaxWriteBytes = 16 << 20
	// MaxDiffBytes caps Meta.Diff (256 KiB).
	MaxDiffBytes = 256 << 10
	// binarySniffBytes: a NUL byte within the first 8000 bytes marks a file
	// binary (git's heuristic).
	binarySniffBytes = 8000
)

// TextFile is a regular text file loaded for reading or editing.
type TextFile struct {
	// Abs is the absolute path; Rel is it for display (Env.Rel).
	Abs, Rel string
	// Content is the whole content (at most MaxReadBytes, no NUL byte in
	// the first 8000 bytes).
	Content []byte
	// Info is the file's information when it was read.
	Info fs.FileInfo
}

// LoadText reads the regular text file abs (already resolved) for a tool.
// On failure the Result says what to do instead: CategoryNotFound when
// abs does not exist (notFoundHint completes "does not exist"),
// CategoryValidation for a directory, a special file, a file over
// MaxReadBytes or a binary file, CategoryExecution for I/O errors.
func LoadText(env *Env, abs, notFoundHint string) (*TextFile, *Result) {
	rel := env.Rel(abs)
	fail := func(cat Category, format string, args ...any) (*TextFile, *Result) {
		r := Failf(cat, format, args...)
		return nil, &r
	}
	fi, err := env.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fail(CategoryNotFound, "%s does not exist%s", rel, notFoundHint)
	case err != nil:
		return fail(CategoryExecution, "cannot stat %s: %v", rel, err)
	case fi.IsDir():
		return fail(CategoryValidation, "%s is a directory, not a file: use list_directory to see its contents", rel)
	case !fi.Mode().IsRegular():
		return fail(CategoryValidation, "%s is not a regular file (%s): only regular files can be read or edited",
			rel, fi.Mode().Type())
	case fi.Size() > MaxReadBytes:
		return fail(CategoryValidation, "%s is %d bytes, over the %d MiB limit of the file tools: "+
			"use run_command (e.g. grep -n, sed -n '100,200p') to look into it", rel, fi.Size(), MaxReadBytes>>20)
	}
	content, fi, err := env.ReadRegular(abs)
	if err != nil {
		return fail(CategoryExecution, "cannot read %s: %v", rel, err)
	}
	if env.Editor != nil {
		// The editor's buffer (maybe unsaved) wins over the disk.
		text, ok, err := env.Editor.ReadText(context.Background(), abs)
		if err != nil {
			return fail(CategoryExecution, "cannot read %s through the editor: %v", rel, err)
		}
		if ok && len(text) > MaxReadBytes {
			return fail(CategoryValidation, "%s is %d bytes in the editor, over the %d MiB limit of the file tools", rel, len(text), MaxReadBytes>>20)
		}
		if ok {
			content = text
		}
	}
	if IsBinary(content) {
		return fail(CategoryValidation, "%s looks like a binary file (it contains NUL bytes; %d bytes): "+
			"the file tools handle text only", rel, len(content))
	}
	return &TextFile{Abs: abs, Rel: rel, Content: content, Info: fi}, nil
}

// IsBinary reports whether b looks binary: a NUL byte within its first
// 8000 bytes (git's heuristic).
func IsBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), binarySniffBytes)], 0) >= 0
}
