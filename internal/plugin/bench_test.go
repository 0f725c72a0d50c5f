package plugin

import (
	"testing"

	"github.com/zelvior/aidex/internal/plugin/plugintest"
)

// BenchmarkLoadAndDigest is what every aidex start pays per enabled
// plugin: reading its manifest and hashing its folder (the test hookify,
// 13 files).
func BenchmarkLoadAndDigest(b *testing.B) {
	m := plugintest.Build(b, b.TempDir())
	root := m.Plugins["hookify"]
	for b.Loop() {
		if _, err := Load(root, ""); err != nil {
			b.Fatal(err)
		}
		if _, err := TreeDigest(root); err != nil {
			b.Fatal(err)
		}
	}
}
