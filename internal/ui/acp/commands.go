package acp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/ui/commands"
	"github.com/zelvior/aidex/internal/ui/slash"
)

// availableCommands is what available_commands_update lists: the
// built-in commands ACP runs (slash.For(slash.ACP), from the one table),
// then the custom commands and MCP prompts (a custom command of a
// built-in's name is hidden by it, as in the terminal). Names go without
// their slash, as ACP clients type them after one.
func (s *session) availableCommands(ctx context.Context) []sdk.AvailableCommand {
	var list []sdk.AvailableCommand
	add := func(name, desc, hint string) {
		ac := sdk.AvailableCommand{Name: strings.TrimPrefix(name, "/"), Description: desc}
		if ac.Description == "" {
			ac.Description = "/" + ac.Name
		}
		if hint != "" {
			ac.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
		}
		list = append(list, ac)
	}
	for _, c := range slash.For(slash.ACP) {
		add(c.Name, c.Help, c.Args)
	}
	cmds, _ := s.svc.CustomCommands(ctx)
	for _, c := range cmds {
		if b, ok := slash.Find("/" + c.Name); ok && b.Runs(slash.ACP) {
			continue
		}
		add(c.Name, c.Description, c.ArgumentHint)
	}
	return list
}

// builtin runs parts when its first text is a built-in command ACP runs
// ("/cost", "/compact focus"): the command's text (or its error) goes to
// the client as an agent message. handled is false for anything else. A command that
// asks to send a prompt (/init) leaves it in parts[0] with handled false,
// for the caller to run.
func (s *session) builtin(ctx context.Context, parts []llm.Part) (handled bool) {
	if len(parts) == 0 || parts[0].Type != llm.PartText {
		return false
	}
	line := strings.TrimSpace(parts[0].Text)
	name, _, _ := strings.Cut(line, " ")
	if c, ok := slash.Find(name); !ok || !c.Runs(slash.ACP) {
		return false
	}
	var out strings.Builder
	o, err := commands.For(slash.ACP).Exec(ctx, commands.Attach(s.svc, s.live, slash.ACP), line, &out)
	if err != nil {
		fmt.Fprintf(&out, "error: %v\n", err)
	}
	if text := out.String(); text != "" {
		_ = s.update(ctx, sdk.UpdateAgentMessageText(text))
	}
	if err != nil || o.Prompt == "" {
		return true
	}
	parts[0].Text = o.Prompt
	return false
}
