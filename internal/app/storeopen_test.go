package app

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/session"
)

// openFilesUnder lists the files under dir this process holds open
// (Linux: /proc/self/fd).
func openFilesUnder(t *testing.T, dir string) []string {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc/self/fd")
	}
	entries, err := os.ReadDir("/proc/self/fd")
	require.NoError(t, err)
	var open []string
	for _, e := range entries {
		target, err := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		if err == nil && strings.HasPrefix(target, dir+string(filepath.Separator)) {
			open = append(open, target)
		}
	}
	return open
}

// The store opened while the configuration loads is closed when the load
// fails: a broken config.toml leaves no database open behind the error.
func TestStartClosesTheStoreWhenTheConfigurationFails(t *testing.T) {
	home := apptest.NewHome(t, "provider = \n") // not TOML
	getenv := func(k string) string { return home.Env[k] }
	_, err := Start(context.Background(), StartOptions{Options: Options{Workspace: home.WS, Getenv: getenv}})
	require.ErrorContains(t, err, "config.toml")
	require.Empty(t, openFilesUnder(t, home.Env["XDG_DATA_HOME"]))
}

// The early store serves Start only when it is of the data directory the
// configuration names; any other is closed and the right one opened.
func TestStoreOpenedEarlyIsTheConfiguredOne(t *testing.T) {
	ctx := context.Background()
	early, other := t.TempDir(), t.TempDir()
	env := map[string]string{"HOME": t.TempDir(), "XDG_DATA_HOME": early}
	op := openStoreEarly(ctx, func(k string) string { return env[k] })
	require.NotNil(t, op)
	store, err := op.take(ctx, filepath.Join(other, "aidex"))
	require.NoError(t, err)
	defer store.Close()
	require.Equal(t, filepath.Join(other, "aidex", session.FileName), store.Path())
	require.Empty(t, openFilesUnder(t, early))
	op.discard() // after take: nothing left to close
	_, err = store.Create(ctx, t.TempDir(), "p", "m")
	require.NoError(t, err, "discard after take must leave the handed-over store open")

	op = openStoreEarly(ctx, func(k string) string { return env[k] })
	store2, err := op.take(ctx, filepath.Join(early, "aidex"))
	require.NoError(t, err)
	require.Equal(t, filepath.Join(early, "aidex", session.FileName), store2.Path())
	require.NotEmpty(t, openFilesUnder(t, early))
	require.NoError(t, store2.Close())
	require.Empty(t, openFilesUnder(t, early))
}

// No data directory in the environment: nothing is opened early, and
// Start reports the store's error as before.
func TestNoEarlyStoreWithoutADataDirectory(t *testing.T) {
	require.Nil(t, openStoreEarly(context.Background(), func(string) string { return "" }))
	var op *storeOpening
	op.discard()
	_, err := op.take(context.Background(), "")
	require.ErrorContains(t, err, "no data directory")
}
