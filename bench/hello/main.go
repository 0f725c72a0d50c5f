// Command hello is the baseline for bench/startup.sh: the smallest Go program
// that prints a line, so the ratio aidex/hello measures aidex's own start-up
// cost (package init, binary size) on top of the Go runtime's.
package main

import "os"

func main() {
	_, _ = os.Stdout.WriteString("hello\n")
}
