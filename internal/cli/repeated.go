package cli

import (
	"bytes"
	"encoding/csv"
	"strings"

	"github.com/spf13/pflag"
)

// repeatedVar defines the repeatable string flag --name in fs, stored in
// p: pflag's StringArray (each use appends its value as given, without
// splitting at commas; the first use replaces the default) with a nil
// default, but cheap to define. pflag computes a StringArray's default
// text through an encoding/csv writer with a 4 KiB buffer, and aidex
// defines some 60 such flags at every start, including a headless run's
// (issue 40: ~30 % of building the command tree). The type name is
// pflag's, "stringArray", so help, completions and the generated
// reference show the flag as before.
func repeatedVar(fs *pflag.FlagSet, p *[]string, name, usage string) {
	*p = nil
	fs.Var(&repeatedValue{p: p}, name, usage)
}

// repeatedValue is the pflag.Value (and pflag.SliceValue) of repeatedVar.
type repeatedValue struct {
	p   *[]string
	set bool // set once: later uses append
}

// Set appends s (the first use replaces the default).
func (v *repeatedValue) Set(s string) error {
	if !v.set {
		*v.p, v.set = []string{s}, true
		return nil
	}
	*v.p = append(*v.p, s)
	return nil
}

// Type is pflag's name for this kind of flag.
func (v *repeatedValue) Type() string { return "stringArray" }

// String is "" while empty (the default, which help then does not show,
// as for pflag's own), else the values as pflag writes a StringArray:
// "[a,b]", each a CSV field.
func (v *repeatedValue) String() string {
	if len(*v.p) == 0 {
		return ""
	}
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	_ = w.Write(*v.p) // a bytes.Buffer does not fail
	w.Flush()
	return "[" + strings.TrimSuffix(b.String(), "\n") + "]"
}

// Append adds s (pflag.SliceValue).
func (v *repeatedValue) Append(s string) error {
	*v.p = append(*v.p, s)
	return nil
}

// Replace sets the values to vals (pflag.SliceValue).
func (v *repeatedValue) Replace(vals []string) error {
	*v.p = append([]string(nil), vals...)
	return nil
}

// GetSlice returns the values (pflag.SliceValue).
func (v *repeatedValue) GetSlice() []string { return append([]string(nil), *v.p...) }
