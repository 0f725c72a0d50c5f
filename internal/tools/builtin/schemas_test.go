package builtin

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/tools"
)

// TestGeneratedSchemasAreCurrent: schemas_gen.go is what SchemaSource
// writes from today's parameter structs.
func TestGeneratedSchemasAreCurrent(t *testing.T) {
	want, err := SchemaSource()
	require.NoError(t, err)
	got, err := os.ReadFile("schemas_gen.go")
	require.NoError(t, err)
	require.Equal(t, string(want), string(got), "schemas_gen.go is out of date: run go generate ./internal/tools/builtin")
}

// TestDefsSendTheSchemasTheirStructsGive: each tool Defs returns, with
// and without the optional ones, has the schema its parameter struct
// gives, taken from schemas_gen.go rather than built by reflection.
func TestDefsSendTheSchemasTheirStructsGive(t *testing.T) {
	for _, o := range []Options{{}, everyTool()} {
		defs, closeFn := Defs(o)
		closeFn()
		ref, closeRef := reflected(o)
		closeRef()
		require.Len(t, defs, len(ref))
		for i, d := range defs {
			require.Equal(t, ref[i].Name, d.Name)
			got, err := d.Schema()
			require.NoError(t, err)
			want, err := ref[i].Schema()
			require.NoError(t, err)
			require.JSONEq(t, string(want), string(got), "tool %s", d.Name)
			require.Equal(t, string(want), string(got), "tool %s: the bytes sent must be the built ones", d.Name)
			require.NotEmpty(t, generatedSchema(generatedSchemas(), d.Name), "tool %s has no generated schema", d.Name)
		}
	}
	schemas := func(defs func(Options) ([]tools.Def, func())) func() {
		return func() {
			ds, closeFn := defs(Options{})
			for _, d := range ds {
				_, _ = d.Schema()
			}
			closeFn()
		}
	}
	gen, ref := testing.AllocsPerRun(5, schemas(Defs)), testing.AllocsPerRun(5, schemas(reflected))
	require.Less(t, gen, ref/4, "Defs builds the schemas by reflection (%v allocations against %v)", gen, ref)
}

// BenchmarkDefsSchemas is what a start pays for the built-in tools'
// schemas: the definitions and every schema.
func BenchmarkDefsSchemas(b *testing.B) {
	for _, c := range []struct {
		name string
		defs func(Options) ([]tools.Def, func())
	}{{"generated", Defs}, {"reflected", reflected}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				defs, closeFn := c.defs(Options{})
				for _, d := range defs {
					if _, err := d.Schema(); err != nil {
						b.Fatal(err)
					}
				}
				closeFn()
			}
		})
	}
}
