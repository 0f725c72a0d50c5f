package cli

import (
	"context"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/ui/commands"
	"github.com/zelvior/aidex/internal/ui/slash"
)

// headlessCommand is the prompt of a headless run once its slash command
// ran: a built-in command that runs in slash.Headless (from the one
// table: "/cost", "/compact", "/tools", ...) writes its text to stdout and
// leaves "" (nothing to send), or the prompt it asks to send (/init); a
// custom command is expanded (expandCommand); any other prompt is
// returned as it is. Errors: a built-in command's (exit 2), or one with
// a JSON output format (its text is not JSON: exit 2); expandCommand's.
func (a *cliApp) headlessCommand(ctx context.Context, svc *app.Service, live *app.Session, f *runFlags, prompt string) (string, error) {
	name, _, _ := strings.Cut(strings.TrimSpace(prompt), " ")
	if c, ok := slash.Find(name); ok && c.Runs(slash.Headless) {
		if outputFormat(f.outputFormat) != formatText {
			return "", usageErr("%s prints text: run it with --output-format text", c.Name)
		}
		o, err := commands.For(slash.Headless).Exec(ctx, commands.Attach(svc, live, slash.Headless), prompt, a.proc.Stdout)
		if err != nil {
			return "", &ExitError{Code: ExitUsage, Err: err}
		}
		return o.Prompt, nil
	}
	return a.expandCommand(ctx, live, prompt)
}
