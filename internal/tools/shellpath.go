package tools

import "strings"

// ShellSyntax reports the shell expansion p seems to expect, or "": a
// leading "~" ("~/x", "~user/x"), a variable ("$HOME", "${VAR}"), a
// command substitution ("$(cmd)", "`cmd`"). File tools never expand paths
// (a "$HOME/x" would be a folder literally named "$HOME" in the workspace),
// so such a path almost always means the model expected a shell.
func ShellSyntax(p string) string {
	if strings.HasPrefix(p, "~") {
		return "~"
	}
	if i := strings.IndexByte(p, '`'); i >= 0 {
		return "`"
	}
	for i := 0; i+1 < len(p); i++ {
		if p[i] != '$' {
			continue
		}
		switch c := p[i+1]; {
		case c == '(':
			return "$("
		case c == '{':
			return "${"
		case c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z':
			j := i + 1
			for j < len(p) && (p[j] == '_' || p[j] >= 'A' && p[j] <= 'Z' || p[j] >= 'a' && p[j] <= 'z' || p[j] >= '0' && p[j] <= '9') {
				j++
			}
			return p[i:j]
		}
	}
	return ""
}

// CheckShellSyntax refuses a path given for param that uses shell syntax
// (see [ShellSyntax]) unless a file or directory by that literal name
// exists in the workspace: a validation Result for the model ("paths are
// not shell-expanded; use a path relative to the workspace"), or nil.
// Env.Resolve applies it to every file tool's paths; the engine's wiring
// applies it before the policy is asked, so no one approves such a call.
func (env *Env) CheckShellSyntax(param, p string) *Result {
	if ShellSyntax(p) == "" || env == nil || env.Workspace == nil {
		return nil
	}
	abs, err := env.Workspace.Resolve(p)
	return env.shellSyntax(param, p, abs, err == nil)
}

// shellSyntax is CheckShellSyntax for p already resolved to abs (ok false:
// it could not be resolved).
func (env *Env) shellSyntax(param, p, abs string, ok bool) *Result {
	syn := ShellSyntax(p)
	if syn == "" {
		return nil
	}
	if ok {
		if _, err := env.Lstat(abs); err == nil {
			return nil // a file by that literal name exists: the model means it
		}
	}
	r := Failf(CategoryValidation, "%s %q: paths are not shell-expanded; use a path relative to the workspace (%s is taken literally here, and no file by that name exists)",
		param, TruncateName(p), syn)
	return &r
}
