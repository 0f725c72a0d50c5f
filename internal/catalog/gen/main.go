// Command gen writes internal/catalog/catalog_gen.go, the embedded
// providers.toml as Go values (see catalog.GoSource). Run it with `go
// generate ./internal/catalog` after editing providers.toml; the package's
// tests fail until then.
package main

import (
	"fmt"
	"os"

	"github.com/zelvior/aidex/internal/catalog"
)

func main() {
	src, err := catalog.GoSource()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if err := os.WriteFile("catalog_gen.go", src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
