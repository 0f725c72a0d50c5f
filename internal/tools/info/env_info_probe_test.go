//go:build unix

package info

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// env_info's version probes never run where a sandboxed command can
// write: a toolchain manager's shim (here a fake `go` that, like rustup,
// mise or asdf, reads a file of the folder it runs in and runs what it
// names) finds no file a command planted in the temp folder or the
// current folder.
func TestEnvInfoProbesIgnorePlantedToolchainFiles(t *testing.T) {
	root := t.TempDir()
	bin, tmp, ws := filepath.Join(root, "bin"), filepath.Join(root, "tmp"), filepath.Join(root, "ws")
	for _, d := range []string{bin, tmp, ws} {
		require.NoError(t, os.Mkdir(d, 0o755))
	}
	marker := filepath.Join(root, "ran")
	shim := "#!/bin/sh\nd=$PWD\nwhile :; do\n  if [ -f \"$d/.tool-versions\" ]; then sh \"$d/.tool-versions\"; fi\n" +
		"  [ \"$d\" = / ] && break\n  d=$(dirname \"$d\")\ndone\necho 'go version go1.99 fake'\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "go"), []byte(shim), 0o755))
	for _, d := range []string{tmp, ws} {
		require.NoError(t, os.WriteFile(filepath.Join(d, ".tool-versions"), []byte("touch "+marker+"\n"), 0o644))
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	t.Setenv("TMPDIR", tmp)
	t.Chdir(ws)
	r := envInfoTool(context.Background(), nil)
	require.True(t, r.OK, r.Error)
	require.Contains(t, r.Output, "go: go version go1.99 fake", "the shim ran as the go probe")
	_, err := os.Stat(marker)
	require.True(t, os.IsNotExist(err), "a probe ran a program named by a planted toolchain file")
}
