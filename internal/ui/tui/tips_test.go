package tui

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// The banner's second line names the workspace (~ for the home folder)
// and one tip (issue 36 item 12, ayder-cli's welcome banner).
func TestBannerTip(t *testing.T) {
	home := filepath.Join(string(filepath.Separator)+"home", "ann")
	tips := startTips()
	require.Equal(t, filepath.Join("~", "src", "proj")+" · tip: "+tips[1], bannerTip(filepath.Join(home, "src", "proj"), home, 1))
	require.Equal(t, filepath.Join(string(filepath.Separator)+"srv", "x")+" · tip: "+tips[0], bannerTip(filepath.Join(string(filepath.Separator)+"srv", "x"), home, len(tips)))
}

// The terminal UI starts with the banner: model, mode, the workspace and
// a tip.
func TestBannerShowsWorkspaceAndTip(t *testing.T) {
	h := newHarness(t)
	h.waitFor(t, "/help for commands", " · tip: ")
	require.NoError(t, h.tm.Quit())
}
