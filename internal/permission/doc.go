// Package permission decides whether a tool call may run: Policy.Check
// takes a Request (tool, kind, paths, command) and returns a Verdict
// (Allow, Ask or Deny) naming the rule that decided, where the rule came
// from and why.
//
// # Precedence
//
// Deny beats ask beats allow. A deny rule always wins: no allow rule,
// mode, session approval (AllowForSession) or "always allow" rule can
// override it, and neither can the built-in denials (safe_mode,
// confinement, protected credential locations). Ask rules and
// the built-in asks (protected paths, lines the shell analysis cannot see
// through) win over every allow rule and mode. For a shell line every
// simple command, redirection target and line-level finding gets its own
// decision (Verdict.Commands) and the worst one decides the line.
//
// # Modes
//
// The mode decides what the rules leave open, by the kind of the tool:
//
//   - plan: reads inside the workspace and the built-in read-only commands
//     are allowed; writes, other commands, network and other tools are
//     denied.
//   - ask (the default): reads and read-only commands are allowed; writes,
//     other commands, network and other tools ask unless an allow rule
//     matches.
//   - auto-edit: like ask, and file changes inside the workspace are
//     allowed.
//   - yolo: everything is allowed except what deny rules, safe_mode,
//     protected paths (which ask), confinement and the shell analysis
//     (lines it cannot see through ask) refuse.
//
// A command that shows environment variables (printenv, env, set,
// export -p, jq env, awk ENVIRON, a here-document expanding $VAR) is not
// read-only: it gets printenv's answer in every mode, and so does a line
// that tests one ([[ $X == a* ]], case $X in ...). One that shows
// other processes' environments (ps e, tmux show-environment) is denied
// in every mode, like /proc/PID/environ.
//
// Reading a credential file (.env, keys, tokens) asks while safe_mode is
// on; writing inside .git, .aidex or an editor or agent config directory,
// or aidex's own config files, asks even in yolo mode.
//
// # Confinement
//
// Paths are judged by where they really lead, never by how they are
// written: Workspace.Resolve joins a relative path to the root, cleans it
// and resolves symlinks component by component, and the result must lie
// in the root or a directory the user granted (WorkspaceOptions.ExtraDirs,
// from --add-dir); a symlink inside the workspace that leads out of it is
// refused. Credential and process-information locations (~/.ssh, ~/.aws,
// /proc/self, /etc/shadow, ...) are refused even without confinement,
// unless the user granted that location itself. Shell arguments that look
// like paths, redirections, cd targets and every option value that names
// a path (env -C DIR, xargs -a FILE, strace -o FILE, git -C DIR,
// tar --directory=DIR, abbreviated or glued) are resolved the same way
// from every directory the line may be in, with ".." taken after the link
// it follows, as the kernel does; a directory an option makes a command
// work in becomes one of those directories. A glob or brace expansion is
// expanded against the real tree and every match resolved. A command
// that takes names of more inputs from a file or its input (sort
// --files0-from=F, tar -T F, rsync --files-from=F, xargs -a F, gcc @F,
// sha256sum -c F, xargs cat < F) is unknown in every mode: the list's own
// path is confined, the names in it cannot be before they are read. A
// recursive command (grep -r, rg -L, find -L, ls -R, du, cp -r, ...) over
// a folder holding a symlink that leads out of the workspace is unknown,
// and so is one whose walk or glob is too large to check.
//
// Writes that would make the workspace root look like a git directory (a
// HEAD file; config, objects/, refs/ beside an existing HEAD) are denied
// in every mode (Workspace.GitDirLookalike). URL subjects (web_fetch) are
// matched in their normalised form (permission/urlnorm).
// A cd whose target cannot be confined
// (built at run time, -, ~user, popd and the directory stack) needs
// approval, and relative paths after it are unknown; commands start with
// OLDPWD and CDPATH unset.
//
// # Who asks
//
// This package never talks to the user. With PolicyConfig.CanAsk false
// (headless runs, Ralph) every Ask becomes a Deny whose reason names the
// rule that asked and how to allow the call. Otherwise an Ask goes back to
// the engine, which asks its Approver and may record the answer with
// Policy.AllowForSession or as a project rule (Policy.SuggestRule). A
// suggested rule keeps the command's subcommand and the options before its
// first operand ("sed -i *", "git commit *"), is the exact command when
// those options name a path, and is "" when no rule may allow the call.
//
// The shell analysis itself (what a line runs, what it writes, which
// commands are read-only, what safe_mode refuses) lives in the
// permission/shell package.
package permission
