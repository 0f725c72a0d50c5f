// Package git is the git tool family: git_status, git_diff, git_log
// (kind.Read) and git_add, git_commit, git_init, git_branch,
// git_checkout (kind.Write). Git runs as argv (never through a shell) in
// the workspace root with the repository's hooks, fsmonitor, pager,
// external diff, signing and filter programs disabled, so a cloned
// repository cannot make a tool call run a program. Summary gives the
// one-line state for the system prompt the same way.
package git
