// Command gen writes the synthetic big repository of issue 21 (see
// package bigrepo) into a new directory and prints its counts.
//
// Usage:
//
//	gen [-files N] [-bytes N] [-ignored F] [-seed N] DIR
//
// The defaults make the full tree: 100,000 files, 1.5 GB, 40% of both in
// the ignored node_modules/.
package main

import (
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/zelvior/aidex/bench/bigrepo"
)

func main() {
	c := bigrepo.Full
	flag.IntVar(&c.Files, "files", c.Files, "files in total")
	flag.Int64Var(&c.Bytes, "bytes", c.Bytes, "bytes in total")
	flag.Float64Var(&c.IgnoredShare, "ignored", c.IgnoredShare, "share of files and bytes in the ignored node_modules/")
	flag.Uint64Var(&c.Seed, "seed", c.Seed, "seed: the same flags give the same tree")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gen [-files N] [-bytes N] [-ignored F] [-seed N] DIR (a new directory)")
		os.Exit(2)
	}
	start := time.Now()
	st, err := bigrepo.Generate(flag.Arg(0), c)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	fmt.Printf("%s: %s, written in %s\n", flag.Arg(0), st, time.Since(start).Round(time.Millisecond))
}
