package notestore

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestSlug(t *testing.T) {
	cases := map[string]string{
		"Release Checklist":      "release-checklist",
		"  API: v2 -- design!! ": "api-v2-design",
		"Ünïcode only ✓":         "n-code-only",
		"////":                   "note",
		"../../etc/passwd":       "etc-passwd",
		string(make([]byte, 0)):  "note",
		"a very long title that goes on and on and on beyond sixty bytes for sure": "a-very-long-title-that-goes-on-and-on-and-on-beyond-sixty-by",
	}
	for in, want := range cases {
		require.Equal(t, want, Slug(in), in)
	}
}

func TestListWithoutNotes(t *testing.T) {
	list, err := List(t.TempDir())
	require.NoError(t, err)
	require.Empty(t, list)
}
