package commands

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/zelvior/aidex/internal/app/rewind"
)

// Checkpoints lists the live session's checkpoints (snapshots of the
// workspace taken before each turn that may change files), oldest first.
// Errors: the store's and git's (app.Session.Checkpoints).
func (c *Controller) Checkpoints(ctx context.Context) ([]rewind.Checkpoint, error) {
	return c.live.Checkpoints(ctx)
}

// Rewound is what [Controller.Rewind] did: the app's result, the scope
// asked for, and whether the conversation was cut (Cut) and before which
// prompt (Prompt, the user message the cut removed first; "" when nothing
// was cut). A rewind to a rewind's own checkpoint restores files but
// cuts nothing.
type Rewound struct {
	rewind.Result
	Scope  rewind.Scope
	Cut    bool
	Prompt string
}

// Rewind restores checkpoint id of the live session within scope: the
// files (rewind.Code), the conversation (rewind.Conversation, cut
// back to before the checkpoint's prompt) or both. Errors: an empty id;
// rewind.ErrUnknownCheckpoint (wrapped, with a hint to list them);
// agent.ErrBusy while a run is going; the store's and git's.
func (c *Controller) Rewind(ctx context.Context, id string, scope rewind.Scope) (Rewound, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return Rewound{}, errors.New("name a checkpoint: /rewind ID (/rewind lists them)")
	}
	before := c.Session().Messages
	res, err := c.live.Rewind(ctx, id, scope)
	if errors.Is(err, rewind.ErrUnknownCheckpoint) {
		return Rewound{}, fmt.Errorf("%w (/rewind lists this session's checkpoints)", err)
	}
	if err != nil {
		return Rewound{}, fmt.Errorf("rewind to %s: %w", id, err)
	}
	out := Rewound{Result: res, Scope: scope}
	out.Cut, out.Prompt = rewind.CutPrompt(before, res, scope)
	return out, nil
}

// ScopeLabel names a rewind scope for people: "code and conversation",
// "code only", "conversation only".
func ScopeLabel(scope rewind.Scope) string {
	switch scope {
	case rewind.Code:
		return "code only"
	case rewind.Conversation:
		return "conversation only"
	}
	return "code and conversation"
}

// CheckpointLine is one checkpoint for lists and pickers: id, local time,
// files changed since it, and its prompt on one line.
func CheckpointLine(cp rewind.Checkpoint) string {
	return fmt.Sprintf("%s  %s  %s  %s", cp.ID, cp.Time.Local().Format("01-02 15:04:05"), filesLabel(len(cp.Files)), PromptLine(cp.Prompt, 60))
}

// PromptLine is prompt collapsed to one line of at most max runes (with
// "…"), or "(no prompt)".
func PromptLine(prompt string, max int) string {
	if s := oneLine(prompt, max); s != "" {
		return s
	}
	return "(no prompt)"
}

// RewindMarker is the line a front end shows where the conversation was
// cut back: "── rewound to before: PROMPT ──", or "── conversation
// rewound ──" when the prompt is not known.
func RewindMarker(prompt string) string {
	if strings.TrimSpace(prompt) == "" {
		return "── conversation rewound ──"
	}
	return "── rewound to before: " + PromptLine(prompt, 70) + " ──"
}

func filesLabel(n int) string {
	if n == 1 {
		return "1 file"
	}
	return fmt.Sprintf("%d files", n)
}

// WriteCheckpoints writes the checkpoints (oldest first, as listed) as a
// table: id, time, files changed, prompt; then how to rewind.
func WriteCheckpoints(out io.Writer, cps []rewind.Checkpoint) error {
	if len(cps) == 0 {
		_, err := fmt.Fprintln(out, "no checkpoints in this session yet: aidex takes one before each turn that may change files")
		return err
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tTIME\tFILES\tPROMPT")
	for _, cp := range cps {
		fmt.Fprintf(w, "%s\t%s\t%d\t%s\n", cp.ID, cp.Time.Local().Format("2006-01-02 15:04:05"), len(cp.Files), PromptLine(cp.Prompt, 70))
	}
	if err := w.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(out, "(/rewind ID [code|conversation|both] goes back to before that prompt; both is the default)")
	return err
}

// WriteRewound says what a rewind did: the files restored, deleted and
// left alone, the conversation's new length, and how to undo it.
func WriteRewound(out io.Writer, id string, r Rewound) {
	fmt.Fprintf(out, "rewound to checkpoint %s (%s)\n", id, ScopeLabel(r.Scope))
	if r.Scope&rewind.Code != 0 {
		for _, p := range r.Restored {
			fmt.Fprintf(out, "restored %s\n", p)
		}
		for _, p := range r.Deleted {
			fmt.Fprintf(out, "deleted %s (new since the checkpoint)\n", p)
		}
		for _, p := range r.Kept {
			fmt.Fprintf(out, "kept %s (ignored or over the size cap: never rewound)\n", p)
		}
		if len(r.Restored)+len(r.Deleted) == 0 {
			fmt.Fprintln(out, "files: nothing to restore (the workspace already matches the checkpoint)")
		}
	}
	switch {
	case r.Cut:
		fmt.Fprintf(out, "conversation: cut back to %d messages\n", r.Messages)
	case r.Scope&rewind.Conversation != 0:
		fmt.Fprintf(out, "conversation: unchanged (%d messages; this checkpoint is not before a prompt of it)\n", r.Messages)
	}
	switch {
	case r.Undo != "" && r.Cut:
		fmt.Fprintf(out, "rewind again with /rewind %s to undo this (the files; the conversation stays cut)\n", r.Undo)
	case r.Undo != "":
		fmt.Fprintf(out, "rewind again with /rewind %s to undo this\n", r.Undo)
	}
}

// cmdRewind is /rewind: without an argument it lists the session's
// checkpoints (the TUI opens a picker instead); /rewind ID [SCOPE]
// rewinds. After a rewind that cut the conversation, the outcome is
// ActRewound with the prompt it was cut before (the front end shows the
// marker and offers the prompt again).
func cmdRewind(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	fields := strings.Fields(arg)
	if len(fields) == 0 {
		cps, err := c.Checkpoints(ctx)
		if err != nil {
			return Outcome{}, err
		}
		return Outcome{}, WriteCheckpoints(out, cps)
	}
	if len(fields) > 2 {
		return Outcome{}, fmt.Errorf("too many arguments: /rewind ID [code|conversation|both]")
	}
	scope := rewind.Both
	if len(fields) == 2 {
		var err error
		if scope, err = rewind.ParseScope(fields[1]); err != nil {
			return Outcome{}, err
		}
	}
	r, err := c.Rewind(ctx, fields[0], scope)
	if err != nil {
		return Outcome{}, err
	}
	WriteRewound(out, fields[0], r)
	if !r.Cut {
		return Outcome{}, nil
	}
	return Outcome{Action: ActRewound, Arg: r.Prompt}, nil
}
