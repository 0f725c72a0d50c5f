// Command schemagen writes internal/tools/builtin/schemas_gen.go, the
// built-in tools' parameter schemas generated at build time (see
// builtin.SchemaSource). Run it with `go generate ./internal/tools/builtin`
// after changing a tool's parameter struct; the package's tests fail until
// then.
package main

import (
	"fmt"
	"os"

	"github.com/zelvior/aidex/internal/tools/builtin"
)

func main() {
	src, err := builtin.SchemaSource()
	if err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile("schemas_gen.go", src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "schemagen:", err)
		os.Exit(1)
	}
}
