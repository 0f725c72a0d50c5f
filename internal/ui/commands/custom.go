package commands

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/slashcmd"
)

// CustomCommands returns the custom slash commands of the workspace and
// the user's folders and of other sources (app.Service.CustomCommands)
// and the problems (files that could not be read).
func (c *Controller) CustomCommands(ctx context.Context) ([]slashcmd.Command, []error) {
	return c.svc.CustomCommands(ctx)
}

// Expand expands line when it names a custom command (nil, nil when it
// does not); the next run uses the command's allowed-tools and model. See
// app.Session.Expand.
func (c *Controller) Expand(ctx context.Context, line string) (*app.Expansion, error) {
	return c.live.Expand(ctx, line, nil)
}

// expand is Expand, nil, nil on a nil controller (tests of the table).
func (c *Controller) expand(ctx context.Context, line string) (*app.Expansion, error) {
	if c == nil {
		return nil, nil
	}
	return c.Expand(ctx, line)
}

// WithCustom returns t with c's custom commands appended (for /help and
// completion: the description, the argument hint and where the command
// comes from: its scope and folder, "(project:tools)"). Built-in
// commands keep precedence: a custom command of a built-in's name is
// added under its folder:name form when it has one, else not at all,
// and the built-in's help says that it hides it.
func (t Table) WithCustom(ctx context.Context, c *Controller) Table {
	out := append(Table(nil), t...)
	cmds, _ := c.CustomCommands(ctx)
	for _, cmd := range cmds {
		name := "/" + cmd.Name
		if i := out.index(name); i >= 0 {
			if cmd.PathName() == cmd.Name {
				out[i].Help += fmt.Sprintf(" (hides the custom %s of %s)", name, cmd.Path)
				continue
			}
			name = "/" + cmd.PathName() // a built-in keeps the short name; the folder form still calls it
		}
		help := cmd.Description
		if help == "" {
			help = "custom command"
		}
		label := string(cmd.Scope)
		if cmd.Folder != "" {
			label += ":" + cmd.Folder
		}
		out = append(out, Spec{Name: name, Args: cmd.ArgumentHint, Help: help + " (" + label + ")", Run: runCustom("/" + cmd.PathName())})
	}
	return out
}

// index returns the position of the command called name (or an alias),
// -1 when there is none.
func (t Table) index(name string) int {
	for i, s := range t {
		if s.Name == name {
			return i
		}
		for _, a := range s.Aliases {
			if a == name {
				return i
			}
		}
	}
	return -1
}

// runCustom returns the Run of custom command name's Spec: it expands
// the command (its notice goes to out) and asks the front end to send
// the result.
func runCustom(name string) func(context.Context, *Controller, string, io.Writer) (Outcome, error) {
	return func(ctx context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
		x, err := c.Expand(ctx, strings.TrimSpace(name+" "+arg))
		if x == nil && err == nil {
			return Outcome{}, fmt.Errorf("custom command %s no longer exists (its file was removed)", name)
		}
		return customOutcome(x, err, out)
	}
}

// customOutcome is the outcome of an expansion: its notice to out, its
// text to send.
func customOutcome(x *app.Expansion, err error, out io.Writer) (Outcome, error) {
	if err != nil {
		return Outcome{}, err
	}
	if x.Notice != "" {
		fmt.Fprintln(out, x.Notice)
	}
	return Outcome{Prompt: x.Text, Expanded: true}, nil
}

// PromptOf returns the model input of o.Prompt: as it is when it is an
// expanded custom command, else through c.BuildPrompt (attaching @file
// mentions: text, documents, images).
func (o Outcome) PromptOf(ctx context.Context, c *Controller) Prompt {
	if o.Expanded {
		return Prompt{Parts: []llm.Part{{Type: llm.PartText, Text: o.Prompt}}}
	}
	return c.BuildPrompt(ctx, o.Prompt)
}

// cmdSkills lists the skills the model can load with the skill tool.
func cmdSkills(_ context.Context, c *Controller, _ string, out io.Writer) (Outcome, error) {
	rt := c.svc.Runtime()
	list, errs := rt.ProjectContent().Skills()
	if len(list) == 0 {
		fmt.Fprintln(out, "no skills: add a folder with a SKILL.md (front matter name, description) to .aidex/skills/ or .claude/skills/ (this project), or ~/.config/aidex/skills/ or ~/.claude/skills/ (yours)")
	}
	for _, s := range list {
		line := fmt.Sprintf("  %-20s %s  [%s: %s]", s.Name, s.Description, s.Scope, s.Dir)
		if s.Label != s.Name {
			line = fmt.Sprintf("  %-20s %s: %s  [%s: %s]", s.Name, s.Label, s.Description, s.Scope, s.Dir)
		}
		if len(s.AllowedTools) > 0 {
			state := "added when loaded"
			if !rt.ProjectContent().SkillHonoured(s) {
				state = "ignored: untrusted project"
			}
			line += fmt.Sprintf("\n  %-20s allowed-tools %s (%s)", "", strings.Join(s.AllowedTools, ", "), state)
		}
		fmt.Fprintln(out, line)
	}
	for _, err := range errs {
		fmt.Fprintf(out, "  problem: %v\n", err)
	}
	return Outcome{}, nil
}
