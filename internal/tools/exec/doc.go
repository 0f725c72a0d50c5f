// Package exec is the command tool family:
//
//   - run_command (kind.Exec, standard profile): a shell command line in
//     the workspace, output capped, exit code reported;
//   - run_python (kind.Exec): a Python 3 program given as code;
//   - run_background_process (kind.Exec, standard profile): a
//     long-running command (dev server, watcher) kept in the session's
//     ProcessTable;
//   - get_background_output, kill_background_process,
//     list_background_processes (kind.Other, standard profile, aidex's
//     own bookkeeping): the background processes of the session.
//
// All are shell tools (Spec.Shell); the command line is the policy
// subject of run_command and run_background_process. Processes run in
// their own process group with stdin closed and credentials removed from
// their environment (internal/tools/proc), and the repository's own git
// programs (fsmonitor, pager, filters) are neutralised for the git they
// run.
package exec
