package config

import (
	"fmt"
	"slices"
	"sort"
)

// modelTables reads [providers.NAME.models.MODEL] tables: vision =
// true|false into the provider's vision_models (the table form of that
// key; a file then cannot also give the static models list), and the
// model's prices (input_price, output_price, cache_read_price,
// cache_write_price, USD per million tokens) and reasoning (effort,
// budget) into the file's prices.
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
			fail("%q must be a table such as { vision = true } or { input_price = 0.5, output_price = 1.5 }, not %s", displayPath(mp), describeValue(m[id]))
			continue
		}
		price := ModelPrice{Source: fmt.Sprintf("%s:%d", d.file, lines[lineKey(mp)])}
		var reasoning ModelReasoning
		for _, k := range sortedKeys(t) {
			val := t[k]
			kp := append(slices.Clone(mp), k)
			if isReasoning, err := readReasoning(&reasoning, k, val); isReasoning {
				if err != nil {
					*errs = append(*errs, &FileError{File: d.file, Line: lines[lineKey(kp)], Key: displayPath(kp), Message: displayPath(kp) + " " + err.Error()})
				}
				continue
			}
			if isPrice, err := readPrice(&price, k, val); isPrice {
				if err != nil {
					*errs = append(*errs, &FileError{File: d.file, Line: lines[lineKey(kp)], Key: displayPath(kp), Message: displayPath(kp) + " " + err.Error()})
				}
				continue
			}
			b, isBool := val.(bool)
			if k != "vision" || !isBool {
				*errs = append(*errs, &FileError{File: d.file, Line: lines[lineKey(kp)], Key: displayPath(kp),
					Message: fmt.Sprintf("%q: a model's table takes only %s", displayPath(kp), modelTableKeys)})
				continue
			}
			if b {
				vision = append(vision, id)
			}
		}
		if price.set() || reasoning.set() {
			d.prices = append(d.prices, modelPrice{provider: p[1], model: id, price: price, reasoning: reasoning, file: d.file, line: lines[lineKey(mp)]})
		}
	}
	if len(vision) == 0 {
		return
	}
	s, provider, ok := lookupSpec(ss, []string{"providers", p[1], "vision_models"})
	if !ok {
		return
	}
	tv, err := fromDecoded(s.kind, vision)
	if err != nil {
		*errs = append(*errs, &FileError{File: d.file, Line: lines[lineKey(p)], Key: displayPath(p), Message: err.Error()})
		return
	}
	d.settings = append(d.settings, setting{spec: s, provider: provider, value: tv, file: d.file, line: lines[lineKey(p)]})
}
