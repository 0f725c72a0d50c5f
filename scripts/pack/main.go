// Command pack writes aidex's release archives and SHA256SUMS from the
// binaries scripts/release.sh built (internal/release does the work):
//
//	go run ./scripts/pack -stage STAGE -out DIR -mtime 2026-12-03T10:00:00Z LICENSE README.md
//
// STAGE holds one folder per platform, aidex-GOOS-GOARCH, each with aidex
// aidex-chat, aidex-sandbox and aidex-nats (.exe on Windows); the arguments are documents every
// archive carries. It prints the archive names written.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/zelvior/aidex/internal/release"
)

func main() {
	stage := flag.String("stage", "", "folder of aidex-GOOS-GOARCH folders holding the built binaries")
	out := flag.String("out", "", "folder the archives and "+release.ChecksumFile+" are written to")
	mtime := flag.String("mtime", "", "RFC 3339 time stamped on every archived file (the commit's time)")
	flag.Parse()
	t, err := time.Parse(time.RFC3339, *mtime)
	if err != nil || *stage == "" || *out == "" {
		fmt.Fprintln(os.Stderr, "usage: pack -stage STAGE -out DIR -mtime RFC3339 [DOC...]")
		os.Exit(2)
	}
	names, err := release.Pack(*stage, *out, flag.Args(), t)
	if err != nil {
		fmt.Fprintln(os.Stderr, "pack:", err)
		os.Exit(1)
	}
	for _, n := range names {
		fmt.Println(n)
	}
}
