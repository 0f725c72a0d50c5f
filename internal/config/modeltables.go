package config

import (
	"fmt"
	"slices"
	"sort"
)

// modelTables reads [providers.NAME.models.MODEL] tables, whose one key
// is vision = true|false, into the provider's vision_models (the table
// form of that key; a file then cannot also give the static models list).
func modelTables(d *fileDoc, ss []keySpec, lines map[string]int, p []string, m map[string]any, errs *[]*FileError) {
	ids := make([]string, 0, len(m))
	for id := range m {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var vision []any
	for _, id := range ids {
		mp := append(slices.Clone(p), id)
		fail := func(format string, args ...any) {
			*errs = append(*errs, &FileError{File: d.file, Line: lines[lineKey(mp)], Key: displayPath(mp), Message: fmt.Sprintf(format, args...)})
		}
		t, ok := m[id].(map[string]any)
		if !ok {
			fail("%q must be a table such as { vision = true }, not %s", displayPath(mp), describeValue(m[id]))
			continue
		}
		for k, val := range t {
			b, isBool := val.(bool)
			if k != "vision" || !isBool {
				fail("%q: a model's table takes only vision = true or false", displayPath(append(slices.Clone(mp), k)))
				continue
			}
			if b {
				vision = append(vision, id)
			}
		}
	}
	s, provider, ok := lookupSpec(ss, []string{"providers", p[1], "vision_models"})
	if !ok || len(vision) == 0 {
		return
	}
	tv, err := fromDecoded(s.kind, vision)
	if err != nil {
		*errs = append(*errs, &FileError{File: d.file, Line: lines[lineKey(p)], Key: displayPath(p), Message: err.Error()})
		return
	}
	d.settings = append(d.settings, setting{spec: s, provider: provider, value: tv, file: d.file, line: lines[lineKey(p)]})
}
