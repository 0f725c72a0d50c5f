package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Reference returns the Markdown reference of every command and flag of
// aidex, generated from the command tree `aidex --help` prints: one
// section per command that is not hidden (depth first, in name order),
// with its usage line, its help text and examples, and a table of its
// own flags (name, shorthand, type, default, meaning); the flags every
// command takes (-w, --verbose, -q) are listed once, under aidex. It is
// the generated part of docs/cli.md (go generate ./internal/docgen).
func Reference() string {
	root := newRootCmd(newApp(Process{}))
	var b strings.Builder
	writeCommandReference(&b, root)
	return b.String()
}

// writeCommandReference writes cmd's section, then its subcommands'.
func writeCommandReference(b *strings.Builder, cmd *cobra.Command) {
	fmt.Fprintf(b, "### `%s`\n\n", cmd.CommandPath())
	if len(cmd.Aliases) > 0 {
		fmt.Fprintf(b, "Also `%s`. ", strings.Join(cmd.Aliases, "`, `"))
	}
	fmt.Fprintf(b, "%s\n\n```text\n%s\n", mdText(cmd.Short), cmd.UseLine())
	if long := strings.TrimSpace(cmd.Long); long != "" {
		fmt.Fprintf(b, "\n%s\n", long)
	}
	if ex := strings.TrimRight(cmd.Example, " \n"); ex != "" {
		fmt.Fprintf(b, "\nExamples:\n%s\n", ex)
	}
	b.WriteString("```\n\n")
	writeFlagTable(b, cmd.LocalFlags())
	subs := slices.Clone(cmd.Commands())
	slices.SortFunc(subs, func(x, y *cobra.Command) int { return strings.Compare(x.Name(), y.Name()) })
	for _, sub := range subs {
		if sub.IsAvailableCommand() {
			writeCommandReference(b, sub)
		}
	}
}

// writeFlagTable writes a table of the flags of fs that are not hidden,
// in name order, or nothing when there is none.
func writeFlagTable(b *strings.Builder, fs *pflag.FlagSet) {
	var rows []string
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Deprecated != "" || f.Name == "help" {
			return
		}
		short := ""
		if f.Shorthand != "" && f.ShorthandDeprecated == "" {
			short = "`-" + f.Shorthand + "`"
		}
		def := ""
		if f.DefValue != "" && f.DefValue != "[]" && f.DefValue != "false" && f.DefValue != "0" {
			def = "`" + f.DefValue + "`"
		}
		rows = append(rows, fmt.Sprintf("| `--%s` | %s | %s | %s | %s |", f.Name, short, f.Value.Type(), def, mdText(f.Usage)))
	})
	if len(rows) == 0 {
		return
	}
	b.WriteString("| flag | short | type | default | meaning |\n|---|---|---|---|---|\n")
	b.WriteString(strings.Join(rows, "\n"))
	b.WriteString("\n\n")
}

// mdText makes s safe in a Markdown table cell: one line, | escaped.
func mdText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	return strings.ReplaceAll(s, "|", `\|`)
}
