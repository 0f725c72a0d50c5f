package cli

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/ralph"
)

// ralph run takes the event-stream flag of headless runs,
// --output-format stream-json (--json stays as its alias).
func TestRalphRunOutputFormatStreamJSON(t *testing.T) {
	e := newRalphEnv(t, llmtest.Turn{Text: "a <promise>COMPLETE</promise>"})
	_, _, _ = e.run("", "ralph", "add", "a")
	code, out, errOut := e.run("", "ralph", "run", "--output-format", "stream-json")
	require.Equal(t, 0, code, errOut)
	var last ralph.Event
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		require.NoError(t, dec.Decode(&last), out)
	}
	require.Equal(t, ralph.EventFinished, last.Type)

	code, _, errOut = e.run("", "ralph", "run", "--output-format", "json")
	require.Equal(t, ExitUsage, code)
	require.Contains(t, errOut, "--output-format must be text or stream-json")
	code, _, _ = e.run("", "ralph", "run", "--json", "--output-format", "text")
	require.Equal(t, ExitUsage, code)
}
