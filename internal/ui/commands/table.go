package commands

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/zelvior/aidex/internal/agent"
)

// Action is something a front end does itself for a command (a picker,
// the editor, the clipboard), returned in an [Outcome].
type Action string

// The front-end actions.
const (
	ActNone         Action = ""
	ActPickModel    Action = "pick-model"    // show the model picker (current provider)
	ActPickProvider Action = "pick-provider" // show the provider picker
	ActPickMode     Action = "pick-mode"     // offer the permission modes (ModeChoices) to pick one
	ActAskKey       Action = "ask-key"       // ask for the API key of provider Outcome.Arg, then switch to it
	ActAskServer    Action = "ask-server"    // ask for a server's base URL, list its models, save the pick (/provider custom)
	ActAskImageKey  Action = "ask-image-key" // ask for the image provider (none set) and its missing credentials (MissingImageSettings), then run "/image Outcome.Arg"
	ActEdit         Action = "edit"          // compose the next prompt in $EDITOR
	ActCopy         Action = "copy"          // copy the last answer to the clipboard
	ActVerbose      Action = "verbose"       // toggle full tool output and reasoning
	ActClearScreen  Action = "clear-screen"  // clear the screen (after /clear)
	ActPlan         Action = "plan"          // plan the goal Outcome.Arg (Controller.Plan), show the tasks, save them on confirmation
	ActEditTask     Action = "edit-task"     // edit task Outcome.Arg (the TUI: $EDITOR on TaskJSON; the line mode: field=value help)
	ActRalphRun     Action = "ralph-run"     // start the Ralph loop (Tasks.Start) and show its events
	ActRewound      Action = "rewound"       // the conversation was rewound to before prompt Outcome.Arg: show the marker (RewindMarker), offer the prompt again
)

// Outcome is what a command asks of the front end after it ran: quit, send
// Prompt to the model as if the user typed it (/init, /load), or do Action
// (with Arg).
//
// Tools are engine-owned tools to offer during the Prompt's run only
// (Controller.RunWith); After, when not nil, is called once that run ends
// (with the run's context, DoneInfo and error) and returns a line for the
// user (/implement records the task's outcome there).
type Outcome struct {
	Quit   bool
	Prompt string
	Action Action
	Arg    string
	Tools  []agent.EngineTool
	After  func(ctx context.Context, done *agent.DoneInfo, err error) string
	// Expanded marks Prompt as an expanded custom command: send it as it
	// is (PromptOf), without attaching @file mentions again.
	Expanded bool
}

// Spec is one slash command: Name with its leading slash ("/model"), Args
// the argument synopsis for help ("[PROVIDER/]MODEL", "" for none), Help a
// one-line description, Aliases other names, and Run the command itself
// (text goes to out).
type Spec struct {
	Name    string
	Args    string
	Help    string
	Aliases []string
	Run     func(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error)
}

// Table is a list of commands in help order. Front ends start from
// [Default] and may append their own.
type Table []Spec

// Find returns the command called name (or an alias), with its slash.
func (t Table) Find(name string) (Spec, bool) {
	for _, s := range t {
		if s.Name == name || slices.Contains(s.Aliases, name) {
			return s, true
		}
	}
	return Spec{}, false
}

// Complete returns the commands whose name starts with prefix ("/mo" →
// /model, /models, /mode), in table order, except that the command named
// exactly prefix comes first ("/mode" → /mode, /model, /models): it is
// the one a menu highlights, so Enter runs what was typed.
func (t Table) Complete(prefix string) []Spec {
	var out []Spec
	for _, s := range t {
		switch {
		case s.Name == prefix:
			out = append([]Spec{s}, out...)
		case strings.HasPrefix(s.Name, prefix):
			out = append(out, s)
		}
	}
	return out
}

// Nearest returns the command name closest to name by edit distance, or ""
// when nothing is reasonably close (more than half the letters differ).
func (t Table) Nearest(name string) string {
	best, bestD := "", 1<<30
	for _, s := range t {
		for _, n := range append([]string{s.Name}, s.Aliases...) {
			d := levenshtein.ComputeDistance(name, n)
			if strings.HasPrefix(n, name) && len(name) > 1 {
				d = min(d, 1)
			}
			if d < bestD {
				best, bestD = s.Name, d
			}
		}
	}
	if bestD > max(2, len(name)/2) {
		return ""
	}
	return best
}

// Exec parses line ("/compact focus on tests") and runs the command. An
// unknown command is an error that suggests the nearest one.
func (t Table) Exec(ctx context.Context, c *Controller, line string, out io.Writer) (Outcome, error) {
	name, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	s, ok := t.Find(name)
	if !ok {
		// A custom command or MCP prompt (app.Session.Expand, the one
		// place they expand), also one added since the table was made.
		if x, err := c.expand(ctx, line); x != nil || err != nil {
			return customOutcome(x, err, out)
		}
		msg := fmt.Sprintf("unknown command %s", name)
		if near := t.Nearest(name); near != "" {
			msg += fmt.Sprintf(": did you mean %s?", near)
		}
		return Outcome{}, fmt.Errorf("%s (/help lists the commands)", msg)
	}
	return s.Run(ctx, c, strings.TrimSpace(arg), out)
}

// helpColumn is the widest usage ("/name ARGS") /help puts beside its
// help text; a wider one gets a line of its own, the text under it.
const helpColumn = 28

// Help writes the table as two columns, "  /name ARGS  help", the help
// texts starting in one column at least two spaces right of every usage
// (a usage wider than helpColumn on its own line, its help below in the
// same column): format.Wrap keeps wrapped help in that column, or under
// the usage on a narrow terminal.
func (t Table) Help(out io.Writer) {
	col := 0
	for _, s := range t {
		if n := len(usage(s)); n <= helpColumn {
			col = max(col, n)
		}
	}
	for _, s := range t {
		u := usage(s)
		if len(u) > col {
			fmt.Fprintf(out, "  %s\n  %-*s  %s\n", u, col, "", s.Help)
			continue
		}
		fmt.Fprintf(out, "  %-*s  %s\n", col, u, s.Help)
	}
}

// usage is a command's name and arguments ("/model [[PROVIDER/]MODEL]").
func usage(s Spec) string { return strings.TrimSpace(s.Name + " " + s.Args) }
