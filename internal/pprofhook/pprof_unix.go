//go:build pprof && unix

package pprofhook

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

// phases makes each SIGUSR1 start the next phase's profile of p.
func phases(p *profiler) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGUSR1)
	go func() {
		for range ch {
			if err := p.next(); err != nil {
				fmt.Fprintln(os.Stderr, "AIDEX_CPUPROFILE:", err)
			}
		}
	}()
}
