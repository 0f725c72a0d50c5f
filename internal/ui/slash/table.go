// Package slash is aidex's one table of built-in slash commands: each
// command's name, arguments, help text and aliases, and as data the front
// ends that run it (the terminal UI, the line mode, the web chat, ACP
// editors, headless `aidex -p "/cmd"`) and, where it does not run, why
// and what to use instead. Every front end lists, completes and refuses
// commands from this table (internal/ui/commands builds the terminal's
// from it, the web chat and ACP theirs), and the commands more than one
// front end runs on a live session without a terminal (/compact, /cost)
// are implemented here once.
package slash

import (
	"slices"
	"strings"
)

// Front is a set of front ends that offer slash commands.
type Front uint8

// The front ends.
const (
	TUI      Front = 1 << iota // the terminal UI
	Line                       // the plain line mode (--plain, dumb terminals)
	Web                        // the web chat (aidex web)
	ACP                        // editors over the Agent Client Protocol (available_commands_update)
	Headless                   // aidex -p "/cmd" (text output)

	// Terminal is the terminal UI and the line mode, which run the same
	// table.
	Terminal = TUI | Line
	// Session is every front end that runs a command on a live session
	// without a terminal: the terminal's, ACP and headless runs.
	Session = Terminal | ACP | Headless
	// All is every front end.
	All = Session | Web
)

// Fronts lists the single front ends in documentation order.
func Fronts() []Front { return []Front{TUI, Line, Web, ACP, Headless} }

// String names a single front end ("tui", "line", "web", "acp",
// "headless"), or a set as its members joined by "+".
func (f Front) String() string {
	var names []string
	for _, one := range Fronts() {
		if f&one != 0 {
			names = append(names, map[Front]string{TUI: "tui", Line: "line", Web: "web", ACP: "acp", Headless: "headless"}[one])
		}
	}
	return strings.Join(names, "+")
}

// Command is one built-in slash command: Name with its slash ("/model"),
// Args the argument synopsis ("" for none), Help the one help text every
// front end shows, Aliases other names, Fronts the front ends that run
// it, and Refused, for front ends that do not, why and what to use
// instead (such a front end answers the command with that reason; one
// without a reason treats the name like any other text).
type Command struct {
	Name    string
	Args    string
	Help    string
	Aliases []string
	Fronts  Front
	Refused map[Front]string
}

// Runs reports whether the command runs in front end f.
func (c Command) Runs(f Front) bool { return c.Fronts&f != 0 }

// Names is the command's name and aliases.
func (c Command) Names() []string { return append([]string{c.Name}, c.Aliases...) }

// Builtins returns every built-in command in help order: the session's
// commands, then Ralph's (/plan, /tasks, /task-edit, /implement,
// /implement-all), /memory, /notes and /image, then /config, /init and
// /exit.
func Builtins() []Command {
	const web, sess = Terminal | Web, Session
	return []Command{
		{Name: "/help", Help: "list the commands and keys", Aliases: []string{"/?"}, Fronts: All},
		{Name: "/model", Args: "[[PROVIDER/]MODEL]", Help: "pick or switch the model", Fronts: web},
		{Name: "/provider", Args: "[NAME]", Help: "pick or switch the provider (asks for a missing key)", Fronts: web},
		{Name: "/models", Args: "[FILTER]", Help: "list the provider's models with prices and context", Fronts: Terminal},
		{Name: "/multi", Args: "[MODE|add M|remove M]", Help: "the active models and the conversation mode (single, round-robin, sequential, parallel)", Fronts: Terminal},
		{Name: "/mode", Args: "[plan|ask|auto-edit|yolo]", Help: "show or set the permission mode", Fronts: web},
		{Name: "/permissions", Args: "[remove [allow|ask|deny] RULE]", Help: "the saved allow/ask/deny rules with their files, or remove one (the web chat lists them only)", Fronts: All},
		{Name: "/architect", Args: "[MODEL [EDITOR]|off]", Help: "architect mode: MODEL plans each turn read-only, EDITOR (default: the main model) makes the edits", Fronts: Terminal},
		{Name: "/sandbox", Args: "[MODE]", Help: "show or set the OS sandbox of commands (workspace-write, read-only, off)", Fronts: Terminal,
			Refused: map[Front]string{Web: "the OS sandbox is set in the config file"}},
		{Name: "/tools", Help: "list the tools the model can use", Fronts: sess},
		{Name: "/skills", Help: "list the skills (SKILL.md folders) the model can load", Fronts: sess},
		{Name: "/mcp", Help: "the MCP servers: status, tools and prompts (/mcp__SERVER__PROMPT runs a prompt)", Fronts: sess},
		{Name: "/plugin", Args: "[VERB ...]", Help: "Claude Code plugins: list, add SRC, enable|disable|remove|review|approve NAME, marketplace add|list|remove", Fronts: Terminal,
			Refused: map[Front]string{Web: "run `aidex plugin` in a terminal", ACP: "run `aidex plugin` in a terminal"}},
		{Name: "/clear", Help: "start a new session and clear the screen", Aliases: []string{"/new"}, Fronts: web},
		{Name: "/compact", Args: "[FOCUS]", Help: "summarise older turns to free context", Fronts: All},
		{Name: "/summary", Help: "what this session holds (messages, tools, files, tokens) and a summary by the small model", Fronts: sess},
		{Name: "/cost", Args: "[estimate [PROMPT]]", Help: "tokens and cost of this session per model, turn and tool; estimate: the next request's tokens and price", Fronts: All},
		{Name: "/context", Help: "how full the context window is", Fronts: sess},
		{Name: "/undo", Help: "restore the files the last turn changed", Fronts: Terminal,
			Refused: map[Front]string{Web: "use the rewind button under a message"}},
		{Name: "/rewind", Args: "[ID [code|conversation|both]]", Help: "list the checkpoints, or go back to before one's prompt (TUI: a picker)", Fronts: Terminal},
		{Name: "/sessions", Help: "list this workspace's sessions", Fronts: Terminal},
		{Name: "/resume", Args: "[ID]", Help: "resume a session (latest other one without ID)", Fronts: Terminal,
			Refused: map[Front]string{Web: "pick the session in the Sessions list"}},
		{Name: "/export", Args: "[FILE]", Help: "write the session as markdown (.json: JSON)", Fronts: Terminal,
			Refused: map[Front]string{Web: "the web UI does not write session files; `aidex sessions` in a terminal does"}},
		{Name: "/save-code", Args: "[FILE...]", Help: "write the last answer's code blocks to files (the Nth to FILE N, else the name its fence gives); /undo restores them", Fronts: Terminal},
		{Name: "/reprint", Help: "print the conversation again (the last 10 exchanges)", Fronts: Terminal},
		{Name: "/load", Args: "FILE|URL", Help: "send a text file as the prompt (documents, images, web pages: with the next message)", Fronts: Terminal,
			Refused: map[Front]string{Web: "attach the file to the message instead"}},
		{Name: "/load-project", Args: "[GLOB]", Help: "add the file tree and files (GLOB) within a token budget to the next message", Fronts: Terminal},
		{Name: "/edit", Help: "compose the next prompt in $EDITOR", Fronts: Terminal,
			Refused: map[Front]string{Web: "type the prompt in the chat box"}},
		{Name: "/copy", Help: "copy the last answer to the clipboard (OSC 52)", Fronts: Terminal},
		{Name: "/verbose", Help: "toggle full tool output and reasoning", Fronts: Terminal},
		{Name: "/plan", Args: "GOAL", Help: "plan a goal into Ralph tasks (read-only), review, then save", Fronts: Terminal},
		{Name: "/tasks", Help: "the Ralph task list (TUI: split view with a/e/r/s keys; /tasks add TITLE adds one)", Fronts: All},
		{Name: "/task-edit", Args: "ID [FIELD=VAL...]", Help: "edit a task (no fields: TUI opens $EDITOR); fields: title description priority status type criteria depends", Fronts: Terminal},
		{Name: "/implement", Args: "ID", Help: "work on one Ralph task now, in this session", Fronts: Terminal},
		{Name: "/implement-all", Help: "start the Ralph loop over the pending tasks", Fronts: Terminal},
		{Name: "/memory", Args: "[VERB ...]", Help: "list memories; pin|unpin|delete ID, edit ID TEXT, add TEXT, list WORDS (pinned go into the system prompt)", Fronts: sess},
		{Name: "/notes", Help: "list the notes in .aidex/notes", Fronts: sess},
		{Name: "/image", Args: "PROMPT [-o FILE]", Help: "generate an image and save it in the workspace", Fronts: Terminal},
		{Name: "/config", Args: "[KEY [VALUE]]", Help: "show settings, or set one in the global config", Fronts: Terminal,
			Refused: map[Front]string{Web: "use Settings (only its safe keys can be changed from the browser)"}},
		{Name: "/init", Help: "write an AGENTS.md for this project (asks the model)", Fronts: sess,
			Refused: map[Front]string{Web: "ask for an AGENTS.md in plain words"}},
		{Name: "/exit", Help: "quit", Aliases: []string{"/quit", "/q"}, Fronts: Terminal,
			Refused: map[Front]string{Web: "close the tab"}},
	}
}

// For returns the commands front end f runs, in help order.
func For(f Front) []Command {
	var out []Command
	for _, c := range Builtins() {
		if c.Runs(f) {
			out = append(out, c)
		}
	}
	return out
}

// Find returns the built-in command called name (with its slash) or one
// of its aliases.
func Find(name string) (Command, bool) {
	if !strings.HasPrefix(name, "/") {
		return Command{}, false
	}
	for _, c := range Builtins() {
		if c.Name == name || slices.Contains(c.Aliases, name) {
			return c, true
		}
	}
	return Command{}, false
}

// Refusal returns why front end f does not run the built-in command
// called name (or an alias) and what to use instead; ok is false when f
// runs it or the table gives no reason.
func Refusal(name string, f Front) (why string, ok bool) {
	c, found := Find(name)
	if !found || c.Runs(f) {
		return "", false
	}
	why, ok = c.Refused[f]
	return why, ok
}
