// Command startup times process start-up of two commands, run alternately
// (A, B, A, B, ...) so both see the same machine load, and prints for each the
// median, 10th and 90th percentile wall time in milliseconds, then the ratio
// of the medians (A/B). It is the timer behind bench/startup.sh.
//
// Usage:
//
//	startup [-n runs] [-warmup runs] -a "cmd args" -b "cmd args"
//
// Commands are split on spaces (no quoting); their output is discarded. A
// command that exits non-zero stops the run with an error naming it.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "startup:", err)
		os.Exit(2)
	}
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("startup", flag.ContinueOnError)
	n := fs.Int("n", 200, "timed runs of each command")
	warm := fs.Int("warmup", 10, "untimed runs of each command first (page cache)")
	a := fs.String("a", "", "first command, e.g. \"/tmp/aidex --version\"")
	b := fs.String("b", "", "second command (the baseline), e.g. /tmp/hello")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *a == "" || *b == "" || *n < 1 {
		return errors.New("need -a and -b commands and -n ≥ 1, e.g. -a \"/tmp/aidex --version\" -b /tmp/hello")
	}
	cmdA, cmdB := strings.Fields(*a), strings.Fields(*b)
	for range *warm {
		if _, err := timeOne(cmdA); err != nil {
			return err
		}
		if _, err := timeOne(cmdB); err != nil {
			return err
		}
	}
	ta := make([]time.Duration, 0, *n)
	tb := make([]time.Duration, 0, *n)
	for range *n {
		d, err := timeOne(cmdA)
		if err != nil {
			return err
		}
		ta = append(ta, d)
		if d, err = timeOne(cmdB); err != nil {
			return err
		}
		tb = append(tb, d)
	}
	ma := report(out, *a, ta)
	mb := report(out, *b, tb)
	fmt.Fprintf(out, "ratio of medians (a/b): %.2fx\n", float64(ma)/float64(mb))
	return nil
}

// timeOne runs argv to completion and returns its wall time (fork/exec to
// wait).
func timeOne(argv []string) (time.Duration, error) {
	c := exec.Command(argv[0], argv[1:]...)
	start := time.Now()
	if err := c.Run(); err != nil {
		return 0, fmt.Errorf("%s: %w", strings.Join(argv, " "), err)
	}
	return time.Since(start), nil
}

// report prints median, p10 and p90 of ds in milliseconds and returns the
// median.
func report(out io.Writer, name string, ds []time.Duration) time.Duration {
	slices.Sort(ds)
	q := func(p float64) time.Duration { return ds[int(p*float64(len(ds)-1))] }
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	fmt.Fprintf(out, "%-40s median %6.2f ms  p10 %6.2f  p90 %6.2f  (n=%d)\n",
		name, ms(q(0.5)), ms(q(0.1)), ms(q(0.9)), len(ds))
	return q(0.5)
}
