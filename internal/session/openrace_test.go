package session

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"
)

// Several aidex processes opening the same new store at once (two
// terminals, Ralph's workers, `aidex eval`'s parallel attempts) all get
// it: one migrates the schema, the others wait for it and find it
// current. Each Open here is a store of its own, with its own
// connections, as another process's would be.
func TestOpenConcurrentlyOnANewStore(t *testing.T) {
	ctx := context.Background()
	for round := range 6 {
		dir := t.TempDir()
		const n = 12
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				s, err := Open(ctx, dir)
				if err == nil {
					err = s.Close()
				}
				errs[i] = err
			})
		}
		wg.Wait()
		for i, err := range errs {
			require.NoError(t, err, "round %d, open %d", round, i)
		}
		s, err := Open(ctx, dir)
		require.NoError(t, err)
		v, err := s.userVersion(ctx)
		require.NoError(t, err)
		require.Equal(t, int64(schemaVersion), v)
		require.NoError(t, s.Close())
	}
}
