package tools_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/imagegen"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/builtin"
)

// edgeArgs has what the built-in tools' parameters do not all have:
// characters json.Marshal escapes, non-ASCII text, pointers, every
// supported type, defaults of each kind.
type edgeArgs struct {
	HTML   string   `json:"html" jsonschema:"a <b> & \"c\" \u2028 é 日本"`
	Ptr    *int     `json:"ptr,omitempty" jsonschema:"pointer" default:"3"`
	Num    float64  `json:"num,omitempty" jsonschema:"number" default:"1.50"`
	Flag   bool     `json:"flag,omitzero" default:"true"`
	List   []string `json:"list,omitempty" jsonschema:"paths" tool:"path" default:"[ \"a\" , \"<b>\" ]"`
	Text   string   `json:"text,omitempty" default:"\"x&y\""`
	hidden string
}

type emptyArgs struct{}

// The schemas sent to the model are written without jsonschema's
// reflection (issue 40) but must stay byte-identical to what it writes:
// the first request's size and the prompt cache's prefix depend on them.
func TestSchemaJSONMatchesJSONSchema(t *testing.T) {
	g, err := imagegen.New(imagegen.Config{})
	require.NoError(t, err)
	defs, closeTools := builtin.Defs(builtin.Options{Image: g})
	defer closeTools()
	run := func(context.Context, *tools.Env, edgeArgs) tools.Result { return tools.Result{} }
	runEmpty := func(context.Context, *tools.Env, emptyArgs) tools.Result { return tools.Result{} }
	defs = append(defs, tools.Define(tools.Spec{Name: "edge"}, run), tools.Define(tools.Spec{Name: "empty"}, runEmpty))
	require.Greater(t, len(defs), 20)
	for _, d := range defs {
		written, reflected, err := tools.SchemaJSONBothWays(d)
		require.NoError(t, err, d.Name)
		require.NotNil(t, reflected, d.Name)
		require.Equal(t, string(reflected), string(written), d.Name)
		require.True(t, tools.SchemaWrittenDirectly(d), "%s: written without reflection", d.Name)
	}
}

// BenchmarkBuiltinSchemas is what every start pays to build the built-in
// tools' schemas (reflection, then JSON).
func BenchmarkBuiltinSchemas(b *testing.B) {
	for b.Loop() {
		defs, closeTools := builtin.Defs(builtin.Options{})
		for _, d := range defs {
			if _, err := d.Schema(); err != nil {
				b.Fatal(err)
			}
		}
		closeTools()
	}
}
