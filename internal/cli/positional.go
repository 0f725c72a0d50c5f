package cli

import (
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/spf13/cobra"
)

// positionalPrompt returns the prompt given as arguments (`aidex "explain
// this repo"`), "" when there are none. A single word close to a
// subcommand's name (`aidex sesions`) is a usage error suggesting it; any
// other text is a prompt. A prompt both as -p and as arguments is an
// error.
func positionalPrompt(cmd *cobra.Command, rf *runFlags, args []string) (string, error) {
	if len(args) == 0 {
		return "", nil
	}
	if len(args) == 1 && !strings.ContainsAny(args[0], " \t\n") {
		if sub := closeSubcommand(cmd, args[0]); sub != "" {
			return "", usageErr("unknown command %q; did you mean %q? (to send the word as a prompt: aidex -p %q)", args[0], sub, args[0])
		}
	}
	prompt := strings.Join(args, " ")
	if rf.prompt != "" {
		return "", usageErr("two prompts: pass the prompt either with -p or as an argument, not both")
	}
	return prompt, nil
}

// closeSubcommand returns the name of a subcommand of root that word is a
// likely typo of, or "". "help" is left out: "hello" is a prompt.
func closeSubcommand(root *cobra.Command, word string) string {
	var names []string
	for _, c := range root.Commands() {
		if c.IsAvailableCommand() && c.Name() != "help" {
			names = append(names, c.Name())
			names = append(names, c.Aliases...)
		}
	}
	return closest(strings.ToLower(word), names)
}

// closest returns the candidate within a typo's distance of s (1 for
// words of up to 4 letters, else 2; transpositions count 1), or "".
func closest(s string, candidates []string) string {
	limit := 2
	if len(s) <= 4 {
		limit = 1
	}
	best, bestD := "", limit+1
	for _, c := range candidates {
		if d := levenshtein.ComputeDistance(s, c); d < bestD && d < len(s) {
			best, bestD = c, d
		}
	}
	return best
}

// newExecCmd is `aidex exec PROMPT`: a headless run, as `aidex -p` (for
// Codex CLI users), with --json for --output-format stream-json.
func newExecCmd(a *cliApp) *cobra.Command {
	var rf runFlags
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "exec [PROMPT...]",
		Short: "Run a prompt headless and exit (same as aidex -p)",
		Long: `Run a prompt headless to completion, print the answer and exit: the same as
aidex -p PROMPT, with the same flags. The prompt is the arguments, -p, -f FILE
or piped stdin (with a prompt, piped stdin becomes context). --json prints the
event stream (--output-format stream-json).`,
		Example: `  aidex exec "explain this repository"
  aidex exec --json --permission-mode auto-edit "fix the failing test"
  git diff | aidex exec "review this change"`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				if rf.prompt != "" {
					return usageErr("two prompts: pass the prompt either with -p or as an argument, not both")
				}
				rf.prompt = strings.Join(args, " ")
			}
			if asJSON {
				if cmd.Flags().Changed("output-format") && rf.outputFormat != string(formatStreamJSON) {
					return usageErr("--json is --output-format stream-json; it cannot be combined with --output-format %s", rf.outputFormat)
				}
				rf.outputFormat = string(formatStreamJSON)
			}
			if err := a.applyRunFlags(&rf); err != nil {
				return err
			}
			if rf.inputFormat == inputStreamJSON {
				return a.streamInputCmd(cmd.Context(), "", &rf)
			}
			if strings.TrimSpace(rf.prompt) == "" && rf.file == "" && !stdinPiped(a.proc.Stdin) {
				return usageErr("the prompt is empty: aidex exec \"PROMPT\", -f FILE, or pipe text into it")
			}
			ctx, stop := withSignals(cmd.Context())
			defer stop()
			return a.runHeadless(ctx, &rf, "the prompt is empty: aidex exec \"PROMPT\", -f FILE, or pipe text into it")
		},
	}
	addRunFlags(cmd, &rf)
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the event stream as JSON lines (--output-format stream-json)")
	for _, name := range []string{"plain", "fullscreen", "full", "web", "port", "tui"} {
		_ = cmd.Flags().MarkHidden(name) // front-end flags: exec is always headless
	}
	return cmd
}
