package catalog

import (
	"os"
	"testing"
)

// TestGeneratedCatalogIsCurrent: catalog_gen.go is providers.toml as it
// is today: the source GoSource writes, and the values the TOML decodes to,
// so Load builds what parsing the file would (parse and Load share build).
func TestGeneratedCatalogIsCurrent(t *testing.T) {
	want, err := GoSource()
	require.NoError(t, err)
	got, err := os.ReadFile("catalog_gen.go")
	require.NoError(t, err)
	require.True(t, string(want) == string(got), "catalog_gen.go is out of date: run go generate ./internal/catalog")
	fd, err := decode(embeddedData)
	require.NoError(t, err)
	require.Equal(t, fd, embeddedFile())
}
