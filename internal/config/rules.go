package config

import (
	"fmt"
	"slices"
	"strings"
)

// RemoveRule removes a permission rule ("TOOL(PATTERN)", exactly as
// written) from permissions.<kind> (allow, deny or ask) of the TOML file
// at path, keeping the rest of the file as it is (the array itself is
// rewritten on one line). The file is written atomically with mode 0600.
//
// Errors: an unknown kind; the file has no such rule (the error lists the
// rules it has); a file that does not parse or would not load after the
// edit; I/O failures.
func RemoveRule(path, kind, rule string) error {
	if kind != "allow" && kind != "deny" && kind != "ask" {
		return fmt.Errorf("config: rule kind must be allow, deny or ask, not %q", kind)
	}
	data, err := readForEdit(path)
	if err != nil {
		return err
	}
	d, err := scanDoc(data)
	if err != nil {
		return fmt.Errorf("config: %s: %w", path, err)
	}
	key := []string{"permissions", kind}
	for _, kv := range d.kvs {
		if !slices.Equal(kv.path, key) || !kv.isArray {
			continue
		}
		var keep, have []string
		found := false
		for _, e := range kv.elems {
			if !e.isString {
				return fmt.Errorf("config: %s line %d: %s holds a value that is not a string", path, kv.line, displayPath(key))
			}
			have = append(have, e.text)
			if e.text == rule && !found {
				found = true
				continue
			}
			keep = append(keep, e.text)
		}
		if !found {
			return fmt.Errorf("config: %s has no %s rule %q (it has: %s)", path, kind, rule, strings.Join(have, ", "))
		}
		return writeChecked(path, splice(data, kv.valStart, kv.end, tomlArray(keep)))
	}
	return fmt.Errorf("config: %s has no %s rules", path, kind)
}
