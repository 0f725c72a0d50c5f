package commands

import (
	"context"
	"strings"
)

// TypedKind says what a typed line asks for.
type TypedKind int

// The kinds of typed line.
const (
	// TypedEmpty is a blank line: nothing to do.
	TypedEmpty TypedKind = iota
	// TypedPrompt is a prompt for the model.
	TypedPrompt
	// TypedSlash is a slash command (/help, /model NAME, …).
	TypedSlash
	// TypedShell is !COMMAND: a shell command the person runs themselves.
	TypedShell
)

// Typed is a line a person typed (the TUI's input box, the line mode's
// prompt), read the way every front end reads it: what it asks for and,
// for a prompt, the model input. The front end shows it (Text, Alias,
// Prompt.Attached and Prompt.Notes) and does what Kind says: a prompt goes
// to [Controller.RunWith] with Prompt.Parts, a slash command to
// [Table.Exec] with Line, a !command to [RunShell] with Line.
type Typed struct {
	// Text is the line as typed, trimmed: what the front end echoes as
	// the person's message.
	Text string
	// Alias is the slash command a chat alias turned Text into
	// (`aidex chat`'s iptic-memex commands, see [ChatAlias]); "" when none.
	Alias string
	// Kind says what the line asks for.
	Kind TypedKind
	// Line is the slash command line (TypedSlash: Text or Alias) or the
	// shell command after "!", trimmed (TypedShell); "" otherwise.
	Line string
	// Prompt is a prompt's model input (TypedPrompt only): the text as
	// typed, untrimmed, with its @file attachments (Controller.BuildPrompt).
	Prompt Prompt
}

// Read reads a typed line, in the order every front end needs before a
// run: a chat alias expanded to its slash command, the kind told (slash
// command, !command or prompt), and a prompt's attachments loaded
// (Controller.BuildPrompt, which reads the @files: it blocks on the file
// system). Nothing is shown or run; the front end does that with what Read
// returns.
func (c *Controller) Read(ctx context.Context, text string) Typed {
	t := Typed{Text: strings.TrimSpace(text)}
	line := t.Text
	if cmd, ok := c.alias(line); ok {
		t.Alias, line = cmd, cmd
	}
	switch {
	case line == "":
	case strings.HasPrefix(line, "/"):
		t.Kind, t.Line = TypedSlash, line
	case strings.HasPrefix(line, "!"):
		t.Kind, t.Line = TypedShell, strings.TrimSpace(line[1:])
	default:
		t.Kind, t.Prompt = TypedPrompt, c.BuildPrompt(ctx, text)
	}
	return t
}
