// Command gen writes a long session (see package longsession) into an
// aidex data directory, as the latest session of a workspace, so that
// `aidex -c` in that workspace resumes it:
//
//	go run ./bench/longsession/gen -data ~/.local/share/aidex -workspace "$PWD" -n 2000
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/zelvior/aidex/bench/longsession"
	"github.com/zelvior/aidex/internal/session"
)

func main() {
	data := flag.String("data", "", "aidex data directory (XDG_DATA_HOME/aidex), required")
	ws := flag.String("workspace", ".", "workspace the session belongs to")
	n := flag.Int("n", 2000, "number of messages")
	flag.Parse()
	if err := run(*data, *ws, *n); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run(data, ws string, n int) error {
	if data == "" {
		return fmt.Errorf("no data directory: pass -data (aidex's is $XDG_DATA_HOME/aidex, ~/.local/share/aidex by default)")
	}
	if n < 1 {
		return fmt.Errorf("-n %d: a session needs at least 1 message", n)
	}
	abs, err := filepath.Abs(ws)
	if err != nil {
		return fmt.Errorf("workspace %s: %w", ws, err)
	}
	ctx := context.Background()
	store, err := session.Open(ctx, data)
	if err != nil {
		return err
	}
	defer store.Close()
	sess, err := longsession.Write(ctx, store, abs, n)
	if err != nil {
		return err
	}
	fmt.Printf("%s: %d messages in %s for %s\n", sess.ID, n, store.Path(), abs)
	return nil
}
