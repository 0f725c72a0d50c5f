package cli

import (
	"fmt"
	"io"

	"github.com/spf13/pflag"
)

// deprecatedShort keeps the old one-letter form short of flag name in fs
// for one more release: hidden from help, and each use prints a notice on
// w (stderr) before setting the flag as --name would. Short flags mean one
// thing across commands (-p prompt, -f file, -c continue), so the others
// lose theirs.
func deprecatedShort(fs *pflag.FlagSet, w io.Writer, name, short string) {
	f := fs.Lookup(name)
	if f == nil {
		panic("deprecatedShort: no flag --" + name) // a programming error in a fixed table
	}
	v := &shortAlias{fs: fs, name: name, short: short, typ: f.Value.Type(), w: w}
	alias := fs.VarPF(v, "deprecated-short-"+short+"-"+name, short, "")
	alias.Hidden = true
	alias.NoOptDefVal = f.NoOptDefVal // -f alone for a bool flag
}

// shortAlias is the pflag.Value of a deprecated short flag: it forwards
// to the flag it stands for.
type shortAlias struct {
	fs          *pflag.FlagSet
	name, short string
	typ         string
	w           io.Writer
}

func (s *shortAlias) String() string { return "" }
func (s *shortAlias) Type() string   { return s.typ }

// Set prints the deprecation notice and sets the real flag.
func (s *shortAlias) Set(v string) error {
	fmt.Fprintf(s.w, "aidex: warning: -%s is deprecated here and will be removed in the next release (aidex -%s means something else); use --%s\n",
		s.short, s.short, s.name)
	return s.fs.Set(s.name, v)
}
