package styles

import (
	"sort"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// Registry of Styles.
//
// aidex patch: the built-in styles other than SwapOff (the Fallback) are
// built and added on first use of Register, Names or Get, not in package
// init (~1 ms and 400 KB on every start of a program that links chroma).
// Code that reads Registry directly must call one of those functions
// first. The exported variables of the other built-in styles (Abap,
// Monokai, ...) are gone: get them by name.
var Registry = map[string]*chroma.Style{}

// Fallback style. Reassign to change the default fallback style.
var Fallback = SwapOff

var (
	loadOnce sync.Once
	// builtins maps the name of each built-in style to its constructor
	// until load has run.
	builtins = map[string]func() *chroma.Style{}
)

// registerLazy records a built-in style's constructor for load.
func registerLazy(name string, build func() *chroma.Style) struct{} {
	builtins[name] = build
	return struct{}{}
}

// load adds the built-in styles to Registry once. An entry already in
// Registry (set by a program before load) wins, as it did upstream when the
// built-ins were registered in package init.
func load() {
	loadOnce.Do(func() {
		for name, build := range builtins {
			if _, ok := Registry[name]; !ok {
				Registry[name] = build()
			}
		}
		builtins = nil
	})
}

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	load()
	Registry[style.Name] = style
	return style
}

// Names of all available styles.
func Names() []string {
	load()
	out := []string{}
	for name := range Registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	load()
	if style, ok := Registry[name]; ok {
		return style
	}
	return Fallback
}

// register adds a style to Registry without loading the built-ins; it is
// for SwapOff, which package init registers.
func register(style *chroma.Style) *chroma.Style {
	Registry[style.Name] = style
	return style
}
