package bluemonday

import (
	"regexp"
	"sync"
)

// lazyRegexp returns a function that compiles expr on its first call and
// returns the same *regexp.Regexp on every call (aidex patch: this
// package's regular expressions were compiled in package init, ~0.5-2 ms
// and ~0.3-0.5 MB on every start of every program that links bluemonday;
// the exported ones are now functions, e.g. CellAlign()).
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
