package cli

import (
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// TestRepeatedValueParsesAsPflagsStringArray: repeatedVar reads a command
// line as pflag's StringArrayVar does (values, their text, the type) and
// gives the same help line.
func TestRepeatedValueParsesAsPflagsStringArray(t *testing.T) {
	for _, args := range [][]string{
		nil,
		{"--x", "a"},
		{"--x", "a", "--x", "b,c"},
		{"--x=", "--x", `say "hi"`, "--x", "a b"},
	} {
		var want, got []string
		ref := pflag.NewFlagSet("ref", pflag.ContinueOnError)
		ref.StringArrayVar(&want, "x", nil, "an `ITEM` (repeatable)")
		ours := pflag.NewFlagSet("ours", pflag.ContinueOnError)
		repeatedVar(ours, &got, "x", "an `ITEM` (repeatable)")
		require.NoError(t, ref.Parse(args))
		require.NoError(t, ours.Parse(args))
		require.Equal(t, want, got, "%q", args)
		r, o := ref.Lookup("x"), ours.Lookup("x")
		require.Equal(t, r.Value.Type(), o.Value.Type())
		if len(want) > 0 {
			require.Equal(t, r.Value.String(), o.Value.String(), "%q", args)
		}
		require.Equal(t, ref.FlagUsages(), ours.FlagUsages())
		require.Implements(t, (*pflag.SliceValue)(nil), o.Value)
	}
}

// TestNoFlagUsesPflagsStringArray: every repeatable string flag of the
// command tree is a repeatedVar, whose definition costs nothing at start.
func TestNoFlagUsesPflagsStringArray(t *testing.T) {
	var walk func(c *cobra.Command)
	n := 0
	walk = func(c *cobra.Command) {
		for _, fs := range []*pflag.FlagSet{c.LocalFlags(), c.PersistentFlags()} {
			fs.VisitAll(func(f *pflag.Flag) {
				if _, alias := f.Value.(*shortAlias); f.Value.Type() == "stringArray" && !alias { // an alias sets the real flag
					_, ok := f.Value.(*repeatedValue)
					require.True(t, ok, "%s --%s: define it with repeatedVar, not pflag's StringArrayVar", c.CommandPath(), f.Name)
					n++
				}
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(newApp(Process{})))
	require.Positive(t, n)
}

// BenchmarkNewRootCmd is the cost of the command tree every command line
// but --version builds first.
func BenchmarkNewRootCmd(b *testing.B) {
	for b.Loop() {
		_ = newRootCmd(newApp(Process{Args: []string{"-p", "x"}}))
	}
}
