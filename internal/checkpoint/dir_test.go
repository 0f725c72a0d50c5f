package checkpoint

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/ospath"
)

// TestDirComparesAsTheOS: every spelling of one folder has one shadow
// repository in its path style; other folders have their own.
func TestDirComparesAsTheOS(t *testing.T) {
	state := "/state"
	require.Equal(t, dirIn(state, `C:\Code\Proj`, ospath.Windows), dirIn(state, `c:\code\proj\`, ospath.Windows))
	require.Equal(t, dirIn(state, `C:\Code\Proj`, ospath.Windows), dirIn(state, `C:/CODE/x/../Proj`, ospath.Windows))
	require.NotEqual(t, dirIn(state, `C:\Code\Proj`, ospath.Windows), dirIn(state, `D:\Code\Proj`, ospath.Windows))
	require.Equal(t, dirIn(state, "/Users/a/Proj", ospath.Darwin), dirIn(state, "/users/a/proj", ospath.Darwin))
	require.NotEqual(t, dirIn(state, "/home/a/Proj", ospath.Unix), dirIn(state, "/home/a/proj", ospath.Unix))
	// Linux keeps the directories older versions made.
	require.Equal(t, legacyDir(state, "/home/a/Proj", ospath.Unix), dirIn(state, "/home/a/Proj/", ospath.Unix))
}

// TestAdoptLegacy: the repository an older aidex made for a spelling of
// the folder moves to the keyed directory, unless that exists.
func TestAdoptLegacy(t *testing.T) {
	state := t.TempDir()
	ws := `C:\Code\Proj`
	old := legacyDir(state, ws, ospath.Windows)
	require.NoError(t, os.MkdirAll(filepath.Join(old, "objects"), 0o700))
	adoptLegacy(state, ws, ospath.Windows)
	_, err := os.Stat(filepath.Join(dirIn(state, `c:\code\proj`, ospath.Windows), "objects"))
	require.NoError(t, err, "legacy repository not adopted")
	_, err = os.Stat(old)
	require.ErrorIs(t, err, os.ErrNotExist)

	// An existing keyed repository is never replaced.
	require.NoError(t, os.MkdirAll(old, 0o700))
	adoptLegacy(state, ws, ospath.Windows)
	_, err = os.Stat(old)
	require.NoError(t, err)
}
