package cli

import (
	"strings"

	"github.com/spf13/cobra"
)

// newChatCmd is `aidex chat`: an interactive chat, as iptic-memex's chat
// mode, where iptic's user commands typed without a slash ("load file
// PATH", "save chat", "set model X", "clear", "quit") are aliases of
// aidex's slash commands.
func newChatCmd(a *cliApp) *cobra.Command {
	var rf runFlags
	cmd := &cobra.Command{
		Use:   "chat [MESSAGE...]",
		Short: "Chat interactively, with iptic-memex's user commands (load file, save chat, set model, clear, quit)",
		Long: `Chat interactively, as iptic-memex's chat mode: the terminal UI on a terminal,
the line mode with --plain or when stdin or stdout is not a terminal (lines
are read from stdin). Words after chat are the first message.

Besides aidex's slash commands, iptic-memex's user commands work typed without
a slash, as aliases: load file PATH (/load), load url URL (/load URL fetches the
page), load project (/load-project), save chat [FILE] (/export), save code
[FILE...] (/save-code: the last answer's code blocks to files, /undo restores them), set model X
(/model), show models (/models), clear (/clear), reprint (/reprint), quit and
exit (/exit). Every flag of aidex works here except the headless ones: for a
one-shot answer use aidex -p.`,
		Example: `  aidex chat
  aidex chat --plain -m ollama/qwen3:8b
  aidex chat -c --plain                      continue the latest session; the conversation is reprinted`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if rf.prompt != "" || rf.file != "" || rf.compat.print || rf.web || cmd.Flags().Changed("output-format") || cmd.Flags().Changed("input-format") {
				return usageErr("aidex chat is the interactive chat: for a one-shot answer use aidex -p \"PROMPT\" (or -f FILE), for the browser aidex web")
			}
			if err := a.applyRunFlags(&rf); err != nil {
				return err
			}
			rf.chatAliases = true
			if rf.full {
				if rf.plain {
					return usageErr("--full and --plain each choose the front end: use one of them")
				}
				if !a.tuiTerminal() {
					return usageErr("--full needs a terminal (stdin and stdout, TERM not dumb): use --plain for the line mode")
				}
				rf.fullscreen = true
			}
			return a.runInteractive(cmd.Context(), &rf, strings.Join(args, " "))
		},
	}
	addRunFlags(cmd, &rf)
	for _, name := range []string{"web", "port", "print", "prompt", "output-format", "input-format", "stream-dialect"} {
		if cmd.Flags().Lookup(name) != nil {
			_ = cmd.Flags().MarkHidden(name) // headless or web flags: chat is interactive
		}
	}
	return cmd
}
