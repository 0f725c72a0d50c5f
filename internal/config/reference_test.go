package config

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The hand-written key table of docs/configuration.md names only keys the
// schema has: a key renamed or removed in the code and still described
// there fails here (the generated table below it lists every key by
// construction). A first cell is "`key`", "`key`, `key`" or
// "`[table] a/b/c`".
func TestConfigPageNamesOnlyRealKeys(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "configuration.md"))
	if err != nil {
		t.Fatal(err)
	}
	page, _, _ := strings.Cut(string(data), "\n## Every key")
	keys := Keys()
	// tables that hold more than keys: described in prose, not in the schema's key list
	tables := map[string]bool{"mcp_servers.NAME": true, "providers.NAME.models.MODEL": true}
	rows := regexp.MustCompile("(?m)^\\| ((?:`[^`]+`(?:, )?)+) \\|").FindAllStringSubmatch(page, -1)
	if len(rows) < 30 {
		t.Fatalf("found %d key rows in docs/configuration.md; the table's shape changed", len(rows))
	}
	for _, row := range rows {
		table := "" // a cell after "`[agent] a`" may name the same table's key alone: "`b`"
		for _, cell := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(row[1], -1) {
			if tb, _, ok := strings.Cut(cell[1], "] "); ok {
				table = strings.TrimPrefix(tb, "[") + "."
			} else if table != "" && slices.Contains(keys, table+cell[1]) {
				cell[1] = "[" + strings.TrimSuffix(table, ".") + "] " + cell[1]
			}
			for _, name := range keyNames(cell[1]) {
				if table, _, _ := strings.Cut(name, "."+lastPart(name)); tables[name] || tables[table] {
					continue
				}
				if !slices.Contains(keys, strings.ReplaceAll(name, ".NAME.", ".*.")) {
					t.Errorf("docs/configuration.md describes %q, which is not a configuration key", name)
				}
			}
		}
	}
}

// keyNames expands a cell's key: "model" → model, "[tools] a/b" →
// tools.a, tools.b, "[mcp_servers.NAME]" → mcp_servers.NAME.
func keyNames(cell string) []string {
	table, rest, ok := strings.Cut(cell, "] ")
	if !ok {
		return []string{strings.Trim(cell, "[]")}
	}
	var out []string
	for _, k := range strings.Split(rest, "/") {
		out = append(out, strings.TrimPrefix(table, "[")+"."+k)
	}
	return out
}

// lastPart is a dotted name's last component.
func lastPart(name string) string {
	return name[strings.LastIndexByte(name, '.')+1:]
}
