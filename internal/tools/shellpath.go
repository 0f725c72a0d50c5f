package tools

import "strings"

// ShellSyntax reports the shell expansion p seems to expect, or "": a
// leading "~" ("~/x", "~user/x"), a command substitution ("$(cmd)",
// "`cmd`"), a braced variable ("${VAR}"), or an environment variable at
// the start of a path segment ("$HOME/x", "a/$TMPDIR", "$USER.txt": upper
// case, as environment variables are named). File tools never expand paths (a "$HOME/x" would
// be a folder literally named "$HOME" in the workspace), so such a path
// almost always means the model expected a shell. Names that merely
// contain "$" are real file names ("routes/$postId.tsx" in Remix,
// "Outer$Inner.class") and pass.
func ShellSyntax(p string) string {
	if strings.HasPrefix(p, "~") {
		return "~"
	}
	if strings.Contains(p, "`") {
		return "`"
	}
	if strings.Contains(p, "$(") {
		return "$("
	}
	if strings.Contains(p, "${") {
		return "${"
	}
	for seg := range strings.SplitSeq(p, "/") {
		if v := envVarSegment(seg); v != "" {
			return v
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

// envVarSegment returns the upper-case environment variable seg starts
// with ("$HOME" of "$HOME", "$USER" of "$USER.txt"), or "": "$" and a name
// of upper-case letters, digits and "_" not followed by a lower-case letter
// ("$Post.tsx" is a file name).
func envVarSegment(seg string) string {
	if len(seg) < 2 || seg[0] != '$' || seg[1] >= '0' && seg[1] <= '9' {
		return ""
	}
	j := 1
	for j < len(seg) && (seg[j] == '_' || seg[j] >= 'A' && seg[j] <= 'Z' || seg[j] >= '0' && seg[j] <= '9') {
		j++
	}
	if j == 1 || j < len(seg) && seg[j] >= 'a' && seg[j] <= 'z' {
		return ""
	}
	return seg[:j]
}
