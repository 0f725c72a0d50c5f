package streamjson

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// TestSchemaFilesAreCurrent fails when docs/schema/ differs from what the
// Go types generate: run go generate ./internal/streamjson.
func TestSchemaFilesAreCurrent(t *testing.T) {
	files, err := Schemas()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join("..", "..", "docs", "schema", name))
		if err != nil {
			t.Fatalf("%v; run go generate ./internal/streamjson", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("docs/schema/%s is out of date with the Go types; run go generate ./internal/streamjson", name)
		}
	}
}

// TestSchemasValidateMessages checks the schemas against real lines:
// every input the parser accepts and an event the engine emits validate,
// and a wrong decision does not.
func TestSchemasValidateMessages(t *testing.T) {
	files, err := Schemas()
	if err != nil {
		t.Fatal(err)
	}
	in := resolve(t, files[InputSchemaFile])
	for _, line := range []string{
		`{"type":"user","message":{"role":"user","content":"hello"},"session_id":"x"}`,
		`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}}]}}`,
		`{"type":"approval","id":"a1","decision":"deny","reason":"no"}`,
		`{"type":"interaction","id":"i1","answers":{"Which?":"SQLite","Files?":["a.go"]}}`,
		`{"type":"interrupt"}`,
	} {
		if _, err := Parse([]byte(line)); err != nil {
			t.Errorf("Parse(%s): %v", line, err)
		}
		if err := in.Validate(decodeAny(t, line)); err != nil {
			t.Errorf("the input schema rejects %s: %v", line, err)
		}
	}
	if err := in.Validate(decodeAny(t, `{"type":"approval","id":"a1","decision":"maybe"}`)); err == nil {
		t.Error("the input schema accepts decision maybe")
	}
	out := resolve(t, files[OutputSchemaFile])
	ev := `{"type":"approval","session_id":"s","approval":{"id":"a","call_id":"c","tool":"write_file","arguments":{"path":"x"},"decision":"once"}}`
	if err := out.Validate(decodeAny(t, ev)); err != nil {
		t.Errorf("the output schema rejects %s: %v", ev, err)
	}
	if err := out.Validate(decodeAny(t, `{"type":"nonsense"}`)); err == nil {
		t.Error("the output schema accepts an unknown event type")
	}
}

func resolve(t *testing.T, data []byte) *jsonschema.Resolved {
	t.Helper()
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	r, err := s.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func decodeAny(t *testing.T, line string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(line), &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestParseRejectsBadLines(t *testing.T) {
	for line, want := range map[string]string{
		`not json`:                                      "not a JSON object",
		`{"type":"hello"}`:                              "unknown type",
		`{"type":"approval","decision":"once"}`:         "needs the id",
		`{"type":"approval","id":"a","decision":"yes"}`: "use once, session, always or deny",
		`{"type":"user","message":{"role":"user"}}`:     "no content",
		`{"type":"interaction","answers":{}}`:           "needs the id",
	} {
		_, err := Parse([]byte(line))
		if err == nil || !bytes.Contains([]byte(err.Error()), []byte(want)) {
			t.Errorf("Parse(%s) = %v, want an error saying %q", line, err, want)
		}
	}
}

func TestUserPartsTextAndImage(t *testing.T) {
	in, err := Parse([]byte(`{"type":"user","message":{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"iVBORw0KGgo="}},{"type":"image","source":{"type":"url","url":"https://example.com/a.png"}}]}}`))
	if err != nil {
		t.Fatal(err)
	}
	parts, err := in.User.Parts()
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 3 || parts[0].Text != "what is this?" || parts[1].MIMEType != "image/png" || string(parts[1].Data[:4]) != "\x89PNG" || parts[2].URL != "https://example.com/a.png" {
		t.Fatalf("parts = %+v", parts)
	}
	for line, want := range map[string]string{
		`{"type":"user","message":{"role":"user","content":[{"type":"audio"}]}}`:                                                                  "use text or image",
		`{"type":"user","message":{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"%%%"}}]}}`: "not base64",
		`{"type":"user","message":{"role":"user","content":"   "}}`:                                                                               "no text or image",
	} {
		in, err := Parse([]byte(line))
		if err == nil {
			_, err = in.User.Parts()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", line, err, want)
		}
	}
}
