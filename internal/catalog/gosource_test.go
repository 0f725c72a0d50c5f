package catalog

import (
	"os"
	"testing"
)

// TestGeneratedCatalogIsCurrent: catalog_gen.go is providers.toml as it
// is today, so Load builds what parsing the file would.
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

// TestLoadIsParse: the catalog Load builds from the generated values is
// the one parsing providers.toml gives.
func TestLoadIsParse(t *testing.T) {
	loaded, err := Load(testFormats())
	require.NoError(t, err)
	parsed, err := parse(embeddedData, testFormats())
	require.NoError(t, err)
	require.Equal(t, parsed, loaded)
}
