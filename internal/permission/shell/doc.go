// Package shell analyses bash command lines for the permission policy. It
// parses a line with mvdan.cc/sh/v3/syntax and reports what the line
// would do, without running anything and without knowing the workspace:
//
//   - Analyze lists every simple command the line runs, looking through
//     lists, pipelines, subshells, substitutions, control structures,
//     functions, aliases and wrappers (env, sudo, timeout, xargs, sh -c,
//     eval, find -exec, git -c, ...), and the files it writes or reads
//     through redirections and output options (tee FILE, dd of=FILE,
//     sort -o FILE, --output=FILE). PathArgs lists the arguments that may
//     name files, for the policy to resolve.
//   - ReadOnly says whether a simple command only reads files and prints.
//   - SafeModeCommand and SafeModeLine name the safe_mode rule a command
//     or line breaks (recursive delete of /, disk formatting, download
//     piped into a shell, force push to main, ...).
//
// Besides the commands, the analysis walks every node of the syntax tree
// (walk.go): command and process substitutions wherever they are (array
// subscripts, arithmetic, [[ ]] operands, parameter-expansion operands,
// redirection targets, heredoc bodies), and every string bash evaluates
// as an expression. Bash evaluates variables and subscripts in arithmetic
// ((( )), $(( )), let, [[ -eq ]], ${a[i]}, ${x:i}), in -v NAME and in the
// names of read, printf -v, declare, ... again, and a subscript there runs
// its command substitutions: such a string is unknown unless it is made of
// numbers and variables the line itself gives only integers (facts.go).
// Code reaching an interpreter is analysed (interp.go, gitcode.go): a
// heredoc or here-string on a shell's standard input, trap, mapfile -C,
// git rebase -x, bisect run, submodule foreach, difftool -x, zip -TT, tar
// --to-command, ...; a program produced at run time (bash <(...), xargs
// sh, sh -c '... {}' under find -exec or xargs -I) or in another language
// is unknown. Long options match by unambiguous GNU prefix and one-letter
// options in bundles (longopt.go). An assignment in front of a command
// makes it unknown unless every variable is on a short harmless list
// (env.go); assignments and exports that reach later commands are listed
// in EnvChanges, and setting CDPATH, HOME, PWD or OLDPWD (or shopt -s
// cdable_vars) makes the line unknown.
//
// For each simple command the answer is one of three. Read-only: ReadOnly
// accepts it, every option being in the command's allowlist, and it shows
// no environment variables: printenv is not read-only, and neither is
// any other way of showing them (env, set, export -p, jq's env and $ENV,
// awk's ENVIRON, a here-document that expands $VAR; SimpleCommand
// ExposesEnv, envreaders.go), while ps e and the like, which show other
// processes' environments, are marked for the policy to refuse. A line
// whose control flow tests an environment variable ([[ $X == a* ]],
// case $X in ...) lists it in Analysis.EnvTests. Writes: the
// line's Writes name the files its redirections and output options write,
// and a safe_mode rule names a destructive action. Unknown: everything
// else, including every command and option the tables do not list; the
// policy asks for it. The analysis fails closed: a line that does not
// parse, a command name or shell code built at run time, code read from a
// pipe and nesting too deep are reported (ParseErr, NonLiteral, Opaque,
// Suspicious) so that the policy never allows them without asking.
//
// Options are read as the programs' getopt reads them (getopt.go): short
// options bundle and take glued values, GNU long options may be
// abbreviated to an unambiguous prefix ("--chdi=DIR" is --chdir). An
// option value that names a path is reported with what the command does
// with it (SimpleCommand.PathOptions: read, chdir or list; writes go to
// Analysis.Writes), for wrappers and commands alike (pathopts.go), so the
// policy can confine it. A list is a file naming more inputs (sort
// --files0-from=F, tar -T F, xargs -a F, gcc @F, sha256sum -c F, the
// names cpio -o reads from standard input; listfiles.go): those names are
// read at run time, so such a command is never read-only and the policy
// treats it as unknown (HasListInput), as it does a command xargs gives
// arguments from its input. A wrapper option the tables do not know makes
// the line opaque. A sed script that runs commands or touches other files
// (e, r, R, w, W, s///e, s///w), comes from a file or is built at run time
// is opaque too (sed.go).
//
// The command knowledge is data read by small functions:
// readonly_table.go (per command and git/go subcommand, the options that
// keep it read-only, in getopt notation, and a rule for its operands),
// safemode.go (command to safe_mode rule and condition), wrappers.go and
// inner.go (how wrappers and options such as find -exec run other
// commands; wrappers_table.go lists each wrapper's options, those that
// keep a read-only command read-only, and those that name paths),
// writes.go (options that name a file the command writes), pathopts.go
// (options whose value is a file read or a working directory) and
// knowledge.go (shells, interpreters, downloaders, variables that change
// what runs, git config keys that run programs).
//
// The package does not import permission: it knows commands, not the
// workspace, modes or rules.
package shell
