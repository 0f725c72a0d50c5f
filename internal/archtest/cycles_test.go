package archtest

import (
	"slices"
	"sort"
	"strings"
	"testing"
)

// importCycle returns one cycle of graph (package → imported packages)
// as the packages on it, the first repeated at the end, or nil when the
// graph has none. Packages are visited in sorted order, so the answer is
// stable.
func importCycle(graph map[string]map[string]bool) []string {
	const (
		unseen = iota
		onPath
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(p string) []string
	visit = func(p string) []string {
		state[p] = onPath
		path = append(path, p)
		for _, im := range sortedKeys(graph[p]) {
			switch state[im] {
			case onPath:
				i := slices.Index(path, im)
				return append(slices.Clone(path[i:]), im)
			case unseen:
				if c := visit(im); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[p] = done
		return nil
	}
	for _, p := range sortedKeys(graph) {
		if state[p] == unseen {
			if c := visit(p); c != nil {
				return c
			}
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestNoImportCycles fails on a cycle in the module's import graph, taken
// from the non-test files of every platform at once: the compiler sees
// one platform's graph at a time, so a cycle closed only through files of
// different platforms (a Windows file one way, a Linux file back) would
// pass every build and still tangle the floors.
func TestNoImportCycles(t *testing.T) {
	if c := importCycle(moduleImports(t)); c != nil {
		t.Errorf("import cycle: %s", strings.Join(c, " → "))
	}
}

// TestImportCycleSeen checks the check itself on planted graphs.
func TestImportCycleSeen(t *testing.T) {
	for _, c := range []struct {
		graph map[string]map[string]bool
		want  []string
	}{
		{map[string]map[string]bool{"a": {"b": true}, "b": {"c": true}, "c": {}}, nil},
		{map[string]map[string]bool{"a": {"b": true}, "b": {"c": true}, "c": {"a": true}}, []string{"a", "b", "c", "a"}},
		{map[string]map[string]bool{"a": {"b": true, "c": true}, "b": {}, "c": {"d": true}, "d": {"c": true}}, []string{"c", "d", "c"}},
		{map[string]map[string]bool{"x": {"x": true}}, []string{"x", "x"}},
	} {
		if got := importCycle(c.graph); !slices.Equal(got, c.want) {
			t.Errorf("importCycle(%v) = %v, want %v", c.graph, got, c.want)
		}
	}
}
