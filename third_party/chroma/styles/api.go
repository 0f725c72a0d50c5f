package styles

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

//go:embed *.xml
var embedded embed.FS

// aidex patch (the design of upstream alecthomas/chroma#1354): upstream
// v2.27.0 parses all embedded style XML files in package init. Here each
// built-in style is parsed on its first lookup, keyed by its file name,
// which is its lower-cased name; only the swapoff fallback is parsed in
// init. Registry is guarded by registryMu.

var registryMu sync.Mutex

// Registry of Styles: the styles registered with Register or RegisterPair
// and the built-in styles looked up so far (a built-in style enters it on
// its first lookup through Get, GetForMode or Names). Use those functions
// rather than reading Registry directly; they hold its lock.
var Registry = map[string]*chroma.Style{}

// Fallback style. Reassign to change the default fallback style.
var Fallback = func() *chroma.Style {
	style, ok := parseEmbedded("swapoff")
	if !ok {
		panic("chroma/styles: the swapoff fallback style is missing")
	}
	Registry["swapoff"] = style
	return style
}()

// parseEmbedded parses the built-in style in name.xml.
func parseEmbedded(name string) (*chroma.Style, bool) {
	r, err := embedded.Open(name + ".xml")
	if err != nil {
		return nil, false
	}
	defer r.Close()
	style, err := chroma.NewXMLStyle(r)
	if err != nil {
		panic(err)
	}
	return style, true
}

// lookup returns the style registered or built in under the lower-cased
// name, parsing a built-in style on first use. registryMu must be held.
func lookup(name string) (*chroma.Style, bool) {
	if style, ok := Registry[name]; ok {
		return style, true
	}
	if strings.ContainsAny(name, "/\\") {
		return nil, false
	}
	style, ok := parseEmbedded(name)
	if !ok {
		return nil, false
	}
	Registry[name] = style
	return style, true
}

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	registryMu.Lock()
	defer registryMu.Unlock()
	Registry[strings.ToLower(style.Name)] = style
	return style
}

// Names of all available styles.
func Names() []string {
	registryMu.Lock()
	defer registryMu.Unlock()
	seen := map[string]bool{}
	out := []string{}
	for name := range Registry {
		seen[name] = true
		out = append(out, name)
	}
	files, err := fs.ReadDir(embedded, ".")
	if err != nil {
		panic(err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(file.Name(), ".xml")
		if !seen[name] {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	registryMu.Lock()
	defer registryMu.Unlock()
	if style, ok := lookup(strings.ToLower(name)); ok {
		return style
	}
	return Fallback
}

// GetForMode returns the named style if it already matches mode, otherwise its
// registered counterpart if one exists and matches mode. If neither matches,
// the originally-requested style is returned (or Fallback if the name is
// unknown), so callers always get something usable.
func GetForMode(name string, mode chroma.Mode) *chroma.Style {
	style := Get(name)
	if style.Mode() == mode {
		return style
	}
	if style.Counterpart == "" {
		return style
	}
	registryMu.Lock()
	counterpart, ok := lookup(style.Counterpart)
	registryMu.Unlock()
	if !ok || counterpart.Mode() != mode {
		return style
	}
	return counterpart
}

// RegisterPair links two styles as light/dark counterparts of each other.
//
// Both styles are also registered if they are not already present.
func RegisterPair(a, b *chroma.Style) {
	Register(a)
	Register(b)
	a.Counterpart = strings.ToLower(b.Name)
	b.Counterpart = strings.ToLower(a.Name)
}
