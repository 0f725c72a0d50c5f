package memstore

import (
	"errors"
	"fmt"
	"strings"
)

// Command is one call of the model's memory tool. Name is view, create,
// str_replace, insert, delete or rename (case and surrounding space
// ignored); Path is the memory path every command works on ("/memories"
// when empty). The other fields are the arguments of one command:
// FileText for create, OldStr and NewStr for str_replace, InsertLine (the
// line to insert after, 0 for the top) and InsertText for insert, NewPath
// for rename.
type Command struct {
	Name       string
	Path       string
	FileText   string
	OldStr     string
	NewStr     string
	InsertLine int
	InsertText string
	NewPath    string
}

// ErrRefused is wrapped by Run's error when Path or NewPath is refused
// (see checkPath); the message reads "memory refused: ...".
var ErrRefused = errors.New("memory refused")

// ErrUsage is matched (errors.Is) by Run's error when the command cannot
// run as given: an unknown command name, or rename without NewPath.
var ErrUsage = errors.New("invalid memory command")

// usageError is an ErrUsage with its own message.
type usageError string

func (e usageError) Error() string      { return string(e) }
func (usageError) Is(target error) bool { return target == ErrUsage }

// Run runs c on the memory tree that family (a result of Family) sees in
// root, the workspace's memory directory (Dir): its own directory as
// /memories, the shared one as /memories/shared. It returns the command's output and the path it
// worked on as the model sees it ("/memories/notes.md"). Errors wrap
// ErrRefused for a refused path or match ErrUsage; the other errors are
// the command's own (see IsNotFound and IsRefusal).
func Run(root, family string, c Command) (out, virtual string, err error) {
	t := tree{root: root, family: family}
	p, err := checkPath(c.Path, family)
	if err != nil {
		return "", "", fmt.Errorf("%w: %w", ErrRefused, err)
	}
	switch strings.ToLower(strings.TrimSpace(c.Name)) {
	case "view":
		out, err = t.view(p)
	case "create":
		out, err = t.create(p, c.FileText)
	case "str_replace":
		out, err = t.strReplace(p, c.OldStr, c.NewStr)
	case "insert":
		out, err = t.insert(p, c.InsertLine, c.InsertText)
	case "delete":
		out, err = t.remove(p)
	case "rename":
		if c.NewPath == "" {
			return "", "", usageError("rename needs new_path, the new memory path")
		}
		to, perr := checkPath(c.NewPath, family)
		if perr != nil {
			return "", "", fmt.Errorf("%w: new_path: %w", ErrRefused, perr)
		}
		out, err = t.rename(p, to)
	default:
		return "", "", usageError(fmt.Sprintf("unknown memory command %q: use view, create, str_replace, insert, delete or rename", clip(c.Name)))
	}
	return out, p.virtual(family), err
}

// IsNotFound reports whether err (from Run or a Store) is about a missing
// memory file, directory or entry.
func IsNotFound(err error) bool {
	return errors.Is(err, errNotFound) || errors.Is(err, ErrNoEntry)
}

// IsRefusal reports whether err (from Run) refuses a path: an invalid
// memory path (ErrBadPath), or a symlink leading out of the memory or
// workspace directory (see IsEscape).
func IsRefusal(err error) bool {
	return errors.Is(err, errEscape) || errors.Is(err, ErrBadPath) || IsEscape(err)
}

// IsEscape reports whether err is an os.Root refusal of a path leading
// outside its root (a symlinked .aidex or memory directory).
func IsEscape(err error) bool {
	return err != nil && strings.Contains(err.Error(), "path escapes from parent")
}

// ParseScope reads a scope as the model or the user gives it: "project"
// (also when empty) or "global", in any case, surrounding space ignored.
// The error names the accepted scopes.
func ParseScope(s string) (Scope, error) {
	scope := Scope(strings.ToLower(strings.TrimSpace(s)))
	if scope == "" {
		scope = ScopeProject
	}
	if scope != ScopeProject && scope != ScopeGlobal {
		return "", fmt.Errorf("unknown scope %q: use project or global", clip(s))
	}
	return scope, nil
}
