// Command gen writes the stream-json JSON Schema files into the folder
// named by its argument (go generate ./internal/streamjson writes
// docs/schema/).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/zelvior/aidex/internal/streamjson"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen DIR")
		os.Exit(2)
	}
	files, err := streamjson.Schemas()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(os.Args[1], name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gen:", err)
			os.Exit(1)
		}
	}
}
