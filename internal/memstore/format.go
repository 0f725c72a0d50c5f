package memstore

import (
	"fmt"
	"strings"
)

// FormatEntry renders an entry on one line for tools and the CLI:
// "ID  DATE  SCOPE  [category] content  #tag #tag  (pinned)".
func FormatEntry(e Entry) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s  %-7s ", e.ID, e.Timestamp.Local().Format("2006-01-02 15:04"), e.Scope)
	if e.Category != "" {
		fmt.Fprintf(&b, " [%s]", e.Category)
	}
	b.WriteString(" " + strings.Join(strings.Fields(e.Content), " "))
	for _, t := range e.Tags {
		b.WriteString("  #" + t)
	}
	if e.Pinned {
		b.WriteString("  (pinned)")
	}
	return b.String()
}
