package tools_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"
)

// A number where the schema says string is coerced to its decimal text,
// as strings are to numbers (ayder-cli's {"id": 1}); a path parameter
// never is (attack case E-155).
func TestPrepareCoercesNumbersToStrings(t *testing.T) {
	f := newFixture(t)
	p, err := f.Reg.Prepare("write_file", json.RawMessage(`{"path": "a.txt", "content": 1.5}`))
	require.NoError(t, err)
	var got map[string]any
	require.NoError(t, json.Unmarshal(p.Args, &got))
	require.Equal(t, "1.5", got["content"])
	p, err = f.Reg.Prepare("write_file", json.RawMessage(`{"path": "a.txt", "content": 42}`))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(p.Args, &got))
	require.Equal(t, "42", got["content"])
	_, err = f.Reg.Prepare("write_file", json.RawMessage(`{"path": 7, "content": "x"}`))
	require.ErrorContains(t, err, `"path" must be a string, got the number 7`)
}
