package format

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/ui/termsafe"
)

// WritePermissionRules writes saved permission rules as a table: kind,
// rule, source ("PATH:LINE", env, flag), deny first.
func WritePermissionRules(out io.Writer, rules []app.PermissionRule) error {
	if len(rules) == 0 {
		_, err := fmt.Fprintln(out, "no saved permission rules (\"always allow\" in an approval, --allow, or [permissions] in config.toml add them)")
		return err
	}
	w := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for _, r := range rules {
		fmt.Fprintf(w, "%s\t%s\t%s\n", r.Kind, termsafe.Clean(r.Rule), termsafe.Clean(r.Source))
	}
	return w.Flush()
}
