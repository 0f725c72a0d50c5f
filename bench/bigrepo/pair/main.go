// Command pair times shell commands run in turn (A, B, C, A, B, C, ...) so
// all see the same machine load and page cache, and prints for each the
// median, minimum and maximum wall time in milliseconds and the ratio of its
// median to the first command's. It is the timer behind bench/bigrepo.sh.
//
// Usage:
//
//	pair [-n runs] [-warmup runs] NAME=COMMAND ...
//
// Each COMMAND runs under `sh -c` with its output discarded; exit status 0
// or 1 (grep's "no match") counts as success, anything else stops the run
// with an error naming the command.
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
		fmt.Fprintln(os.Stderr, "pair:", err)
		os.Exit(2)
	}
}

type command struct {
	name, line string
	times      []time.Duration
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("pair", flag.ContinueOnError)
	n := fs.Int("n", 7, "timed runs of each command")
	warm := fs.Int("warmup", 1, "untimed runs of each command first (page cache)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var cmds []*command
	for _, a := range fs.Args() {
		name, line, ok := strings.Cut(a, "=")
		if !ok || name == "" || line == "" {
			return fmt.Errorf("argument %q: want NAME=COMMAND, e.g. rg='rg -n foo'", a)
		}
		cmds = append(cmds, &command{name: name, line: line})
	}
	if len(cmds) == 0 || *n < 1 {
		return errors.New("need at least one NAME=COMMAND and -n ≥ 1")
	}
	for i := range *warm + *n {
		for _, c := range cmds {
			d, err := timeOne(c.line)
			if err != nil {
				return fmt.Errorf("%s: %w", c.name, err)
			}
			if i >= *warm {
				c.times = append(c.times, d)
			}
		}
	}
	base := median(cmds[0].times)
	for _, c := range cmds {
		m := median(c.times)
		fmt.Fprintf(out, "%-28s median %8.1f ms  min %8.1f  max %8.1f  (n=%d)  %.2fx %s\n", c.name,
			ms(m), ms(slices.Min(c.times)), ms(slices.Max(c.times)), len(c.times), float64(m)/float64(base), cmds[0].name)
	}
	return nil
}

// timeOne runs line under sh -c and returns its wall time.
func timeOne(line string) (time.Duration, error) {
	c := exec.Command("sh", "-c", line)
	c.Stderr = os.Stderr
	start := time.Now()
	err := c.Run()
	d := time.Since(start)
	var ee *exec.ExitError
	if err != nil && (!errors.As(err, &ee) || ee.ExitCode() > 1) {
		return 0, err
	}
	return d, nil
}

// median is the lower middle of ds for an even count, as bench/startup's.
func median(ds []time.Duration) time.Duration {
	s := slices.Sorted(slices.Values(ds))
	return s[(len(s)-1)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
