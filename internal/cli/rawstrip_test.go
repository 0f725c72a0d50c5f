package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

// A finish marker split across streamed chunks (Anthropic's text deltas,
// the Responses API's delta and done events) is cut from the text strings
// that hold it; the rest of the raw response stays byte for byte.
func TestStripRawMarkersAcrossChunks(t *testing.T) {
	raw := `[{"type":"message_start","message":{"id":"msg_1","content":[]}},` +
		`{"type":"content_block_delta","delta":{"type":"text_delta","text":"done <ok> %%COMP"}},` +
		`{"type":"content_block_delta","delta":{"type":"text_delta","text":"LETED%% bye"}},` +
		`{"type":"response.output_text.done","text":"all %%DONE%%"}]`
	out := string(stripRawMarkers([]byte(raw)))
	if strings.Contains(out, "%%") || !json.Valid([]byte(out)) {
		t.Fatalf("markers left or invalid JSON: %s", out)
	}
	for _, want := range []string{`"text":"done <ok> "`, `"text":" bye"`, `"text":"all "`, `"type":"message_start"`} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %s: %s", want, out)
		}
	}
	plain := `{"choices":[{"message":{"content":"no marker here"}}]}`
	if got := string(stripRawMarkers([]byte(plain))); got != plain {
		t.Errorf("changed a response without markers: %s", got)
	}
}
