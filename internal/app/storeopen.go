package app

import (
	"context"
	"os"

	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/session"
)

// storeOpening is the session store being opened in the background while
// [Start] loads the configuration: the store's data directory comes from
// the environment alone ([config.ResolvePaths]), so the two need not wait
// for each other (opening takes ~0.7 ms, the load ~0.5 ms; issue 40).
type storeOpening struct {
	dir   string
	done  chan struct{}
	store *session.Store
	err   error
}

// openStoreEarly starts opening the store of the data directory getenv
// gives (os.Getenv when nil); nil when the environment names none (the
// store is then opened, and its error reported, once the configuration
// is loaded).
func openStoreEarly(ctx context.Context, getenv func(string) string) *storeOpening {
	if getenv == nil {
		getenv = os.Getenv
	}
	p, err := config.ResolvePaths(getenv)
	if err != nil || p.DataDir == "" {
		return nil
	}
	op := &storeOpening{dir: p.DataDir, done: make(chan struct{})}
	go func() {
		defer close(op.done)
		op.store, op.err = session.Open(ctx, op.dir)
	}()
	return op
}

// take returns the store of dataDir: the one opened early when it is of
// that directory, else one opened now. Errors: session.Open's.
func (op *storeOpening) take(ctx context.Context, dataDir string) (*session.Store, error) {
	if op != nil {
		<-op.done
		store, err := op.store, op.err
		op.store = nil // handed over or closed here: discard leaves it be
		if op.dir == dataDir {
			return store, err
		}
		if store != nil {
			_ = store.Close()
		}
	}
	return session.Open(ctx, dataDir)
}

// discard closes the store opened early, once its opening ends: Start
// failed before it needed it.
func (op *storeOpening) discard() {
	if op == nil {
		return
	}
	<-op.done
	if op.store != nil {
		_ = op.store.Close()
		op.store = nil
	}
}
