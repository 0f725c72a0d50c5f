// Command gendocs rewrites the generated parts of the pages under docs/
// (every command and flag, configuration key and event) from the code;
// its argument is the repository's root (go generate ./internal/docgen).
package main

import (
	"fmt"
	"os"

	"github.com/zelvior/aidex/internal/docgen"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gendocs REPOSITORY_ROOT")
		os.Exit(2)
	}
	if err := docgen.Write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "gendocs:", err)
		os.Exit(1)
	}
}
