// Package cli holds aidex's commands and flags (cobra) and maps them onto
// the application service (internal/app) and the front ends. Nothing here runs at package
// init; each command loads only what it needs.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/zelvior/aidex/internal/ui/chatopts"
)

// Exit codes of the aidex process, as documented in docs/cli.md (a test
// checks the table there and the list of --help against these).
const (
	ExitOK      = 0 // done
	ExitFailure = 1 // provider, network or I/O error
	ExitUsage   = 2 // bad usage or input
	ExitDenied  = 3 // a needed action was denied by the permission policy
	ExitLimit   = 4 // the turn or step limit was reached
	// ExitBudget: a budget was used up (--max-cost, [budget]); the run
	// stopped at a step boundary and the session is resumable (aidex -c).
	ExitBudget = 5
	// ExitLoop: the model repeated the same tool call 3 times in a row and
	// the run was stopped.
	ExitLoop = 6
	// ExitAsk: `aidex permissions check` found the call would ask for
	// approval (0 there means allow, 3 deny).
	ExitAsk = 10
	// ExitInterrupted: the run was interrupted (Ctrl+C, SIGTERM); the
	// session keeps the partial answer.
	ExitInterrupted = 130
)

// Process is what the command line runs with: a base context, arguments
// (without the program name), standard streams, an environment lookup and
// the build stamp (Version: main.build, "VERSION" or "VERSION DATE"; ""
// when the build set none).
type Process struct {
	// Context is the process's base context (nil: context.Background);
	// tests cancel it to stand in for Ctrl+C.
	Context context.Context
	Args    []string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
	Getenv  func(string) string
	Version string
	// OpenURL opens a URL in the user's browser without waiting for it
	// (nil: the system's opener, xdg-open, open or rundll32).
	OpenURL func(url string) error
	// Chat runs the interactive chat (the terminal UI or the line mode) in
	// this process: chat.Run in aidex-chat and in tests. Without it, an
	// interactive session is handed to the program aidex-chat (see
	// Program), or is an error when this Process is not a program's.
	Chat chatopts.Run

	// launch replaces the process with the program aidex-chat, given the
	// command line (Program sets it; see launchChat).
	launch func(args []string) error
	// handoff is the version line of the aidex that handed this process
	// its command line (aidex-chat started by aidex; "" otherwise): the
	// warnings aidex printed before handing over are not repeated.
	handoff string
}

// ExitError carries a process exit code with its cause.
type ExitError struct {
	Code int
	Err  error
}

// Error returns the cause's message.
func (e *ExitError) Error() string {
	if e.Err == nil {
		return fmt.Sprintf("exit %d", e.Code)
	}
	return e.Err.Error()
}

// Unwrap returns the cause.
func (e *ExitError) Unwrap() error { return e.Err }

// usageErr wraps err with the bad-usage exit code.
func usageErr(format string, args ...any) error {
	return &ExitError{Code: ExitUsage, Err: fmt.Errorf(format, args...)}
}

// Main runs aidex with p and returns the process exit code. In commands
// (and headless runs) SIGINT and SIGTERM cancel the command's context, and a
// headless run then keeps its partial answer in the session; interactive
// front ends handle Ctrl+C themselves (it stops the current answer).
func Main(p Process) int {
	ctx := p.Context
	if ctx == nil {
		ctx = context.Background()
	}
	if len(p.Args) == 1 && (p.Args[0] == "--version" || p.Args[0] == "-v") {
		// The same line cobra's version flag prints, without building the
		// command tree first (start-up time, issue 21).
		fmt.Fprintf(p.Stdout, "aidex %s\n", p.version())
		return ExitOK
	}
	app := newApp(p)
	root := newRootCmd(app)
	root.SetArgs(rewriteCompatArgs(root, p.Args))
	root.SetIn(p.Stdin)
	root.SetOut(p.Stdout)
	root.SetErr(p.Stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return ExitOK
	}
	code := ExitFailure
	var ee *ExitError
	if errors.As(err, &ee) {
		code = ee.Code
	} else if !app.started {
		code = ExitUsage // cobra refused the command line itself
	}
	if ee == nil || ee.Err != nil {
		fmt.Fprintf(p.Stderr, "aidex: %v\n", err)
		logLine(p.Getenv, time.Now(), "ERROR", fmt.Sprintf("exit %d: %v", code, err))
	}
	return code
}

// version returns the build's version line (see buildVersion).
func (p Process) version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		bi = nil
	}
	return buildVersion(p.Version, bi)
}

// shortVersion is the version front ends show in a banner: the release
// ("v1.2.0"), "dev" plus the commit for a build of an untagged commit
// ("dev 1a2b3c4"), or "dev"; --version gives the whole story.
func (p Process) shortVersion() string { return shortVersionOf(p.version()) }

// shortVersionOf is shortVersion for a version line (buildVersion's).
func shortVersionOf(line string) string {
	v, _, _ := strings.Cut(line, " (")
	if rest, ok := strings.CutPrefix(v, "v0.0.0-"); ok {
		if i := strings.LastIndexByte(rest, '-'); i >= 0 && len(rest) > i+7 {
			return "dev " + rest[i+1:i+8]
		}
		return "dev"
	}
	return v
}

// buildVersion is the line --version prints after "aidex ": the version,
// then in parentheses the build date and the commit. stamp is the build's
// stamp, main.build set with -ldflags: "VERSION" or "VERSION DATE" (see
// docs/development.md); bi is the build information the Go toolchain
// recorded (nil: none). The version is the stamp's, else the module
// version `go install` recorded, else "dev". The commit, its time and
// whether the tree had local changes come from bi's vcs settings, or from
// a pseudo-version; without them the line says how to find the commit:
// "v1.2.0 (built 2026-03-04T05:06:07Z, commit 1a2b3c4d5e6f,
// 2026-03-04T04:00:00Z)", "dev (commit not recorded: build aidex with ...)".
func buildVersion(stamp string, bi *debug.BuildInfo) string {
	v, date, _ := strings.Cut(stamp, " ") // " DATE": a date without a version
	v, date = strings.TrimSpace(v), strings.TrimSpace(date)
	if v == "" && bi != nil && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		v = bi.Main.Version
	}
	if v == "" {
		v = "dev"
	}
	set := map[string]string{}
	if bi != nil {
		for _, s := range bi.Settings {
			set[s.Key] = s.Value
		}
	}
	var facts []string
	if date != "" {
		facts = append(facts, "built "+date)
	}
	switch r := set["vcs.revision"]; {
	case r != "":
		facts = append(facts, "commit "+r[:min(12, len(r))])
		if t := set["vcs.time"]; t != "" {
			facts = append(facts, t)
		}
		if set["vcs.modified"] == "true" {
			facts = append(facts, "modified")
		}
	case pseudoCommit(v) != "":
		facts = append(facts, "commit "+pseudoCommit(v))
	default:
		how := "commit not recorded: build aidex with go build in a git checkout, not with go run nor -buildvcs=false"
		if v != "dev" {
			how = "commit not recorded: it is the one tagged " + v + ", git rev-parse " + v + "^{commit}"
		}
		if len(facts) > 0 {
			return v + " (" + strings.Join(facts, ", ") + "; " + how + ")"
		}
		facts = append(facts, how)
	}
	return v + " (" + strings.Join(facts, ", ") + ")"
}

// pseudoCommit returns the commit (12 hex digits) a Go pseudo-version
// names ("v0.0.0-20260102100000-1a2b3c4d5e6f", "v1.2.1-0.20260102100000-
// 1a2b3c4d5e6f", either with a "+dirty" suffix), else "".
func pseudoCommit(v string) string {
	v, _, _ = strings.Cut(v, "+")
	parts := strings.Split(v, "-")
	if len(parts) < 3 {
		return ""
	}
	rev, ts := parts[len(parts)-1], parts[len(parts)-2]
	ts = ts[strings.LastIndexByte(ts, '.')+1:]
	if len(rev) != 12 || len(ts) != 14 || strings.Trim(rev, "0123456789abcdef") != "" || strings.Trim(ts, "0123456789") != "" {
		return ""
	}
	return rev
}

// withSignals returns ctx cancelled on SIGINT or SIGTERM.
func withSignals(ctx context.Context) (context.Context, context.CancelFunc) {
	return signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
}
