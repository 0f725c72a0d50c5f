package tools_test

import (
	"encoding/json"
	"testing"

	"github.com/zelvior/aidex/internal/tools"
)

// BenchmarkPrepare measures argument normalisation and validation, and
// reports the size of the standard profile's schemas.
func BenchmarkPrepare(b *testing.B) {
	reg := tools.NewRegistry()
	if err := reg.Register(fileTools()...); err != nil {
		b.Fatal(err)
	}
	schemas, _ := reg.Schemas(tools.Profile{})
	all, _ := json.Marshal(schemas)
	args := json.RawMessage(`{"file_path":"a/b.go","old_str":"x := 1","new_str":"x := 2","replaceAll":"false"}`)
	for b.Loop() {
		if _, err := reg.Prepare("Edit", args); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(all)), "std-schema-bytes")
}

// BenchmarkRegistryStartup measures building a registry and its schemas
// (what aidex does at start-up).
func BenchmarkRegistryStartup(b *testing.B) {
	for b.Loop() {
		reg := tools.NewRegistry()
		if err := reg.Register(fileTools()...); err != nil {
			b.Fatal(err)
		}
	}
}
