package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func TestConvertSchema(t *testing.T) {
	cases := []struct {
		name, in, want string // want "null" for no parameters
	}{
		{"empty", ``, `null`},
		{"null", `null`, `null`},
		{"no properties", `{"type":"object","properties":{},"additionalProperties":false}`, `null`},
		{"bare object", `{}`, `null`},
		{"drops unsupported keywords",
			`{"$schema":"x","$id":"y","title":"T","type":"object","additionalProperties":false,"examples":[1],
			  "properties":{"a":{"type":"string","title":"A","description":"d","minLength":1,"pattern":"^x","format":"uri"}},
			  "required":["a","ghost"]}`,
			`{"type":"OBJECT","properties":{"a":{"type":"STRING","description":"d","minLength":1,"pattern":"^x"}},"required":["a"]}`},
		{"nullable type list",
			`{"type":"object","properties":{"n":{"type":["integer","null"],"minimum":0,"format":"int64"}}}`,
			`{"type":"OBJECT","properties":{"n":{"type":"INTEGER","nullable":true,"minimum":0,"format":"int64"}}}`},
		{"multi type becomes anyOf",
			`{"type":"object","properties":{"v":{"type":["string","number"],"description":"value"}}}`,
			`{"type":"OBJECT","properties":{"v":{"anyOf":[{"type":"STRING"},{"type":"NUMBER"}],"description":"value"}}}`},
		{"refs expanded",
			`{"type":"object","$defs":{"P":{"type":"object","properties":{"x":{"type":"number"}},"required":["x"]}},
			  "properties":{"p":{"$ref":"#/$defs/P","description":"a point"},"q":{"$ref":"#/definitions/Missing"}}}`,
			`{"type":"OBJECT","properties":{"p":{"type":"OBJECT","description":"a point","properties":{"x":{"type":"NUMBER"}},"required":["x"]},"q":{}}}`},
		{"anyOf with null flattens",
			`{"type":"object","properties":{"s":{"anyOf":[{"type":"string","maxLength":5},{"type":"null"}],"description":"d"}}}`,
			`{"type":"OBJECT","properties":{"s":{"type":"STRING","maxLength":5,"nullable":true,"description":"d"}}}`},
		{"oneOf becomes anyOf",
			`{"type":"object","properties":{"u":{"oneOf":[{"type":"string"},{"type":"array","items":{"type":"string"}}]}}}`,
			`{"type":"OBJECT","properties":{"u":{"anyOf":[{"type":"STRING"},{"type":"ARRAY","items":{"type":"STRING"}}]}}}`},
		{"allOf merged",
			`{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"boolean"}},"required":["b"]}]}`,
			`{"type":"OBJECT","properties":{"a":{"type":"STRING"},"b":{"type":"BOOLEAN"}},"required":["a","b"]}`},
		{"const and enums",
			`{"type":"object","properties":{"k":{"const":"fixed"},"e":{"type":"string","enum":["a","b"]},"i":{"type":"integer","enum":[1,2],"description":"level"}}}`,
			`{"type":"OBJECT","properties":{"k":{"type":"STRING","enum":["fixed"]},"e":{"type":"STRING","enum":["a","b"]},"i":{"type":"INTEGER","description":"level Allowed values: 1, 2."}}}`},
		{"tuple items use the first",
			`{"type":"object","properties":{"t":{"type":"array","items":[{"type":"number"},{"type":"string"}],"minItems":2}}}`,
			`{"type":"OBJECT","properties":{"t":{"type":"ARRAY","items":{"type":"NUMBER"},"minItems":2}}}`},
		{"type inferred",
			`{"properties":{"o":{"properties":{"z":{"type":"string"}}},"l":{"items":{"type":"string"}}}}`,
			`{"type":"OBJECT","properties":{"o":{"type":"OBJECT","properties":{"z":{"type":"STRING"}}},"l":{"type":"ARRAY","items":{"type":"STRING"}}}}`},
		{"recursive ref is bounded",
			`{"type":"object","$defs":{"N":{"type":"object","properties":{"next":{"$ref":"#/$defs/N"}}}},"properties":{"n":{"$ref":"#/$defs/N"}}}`,
			``}, // checked below: converts without error, finite
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ConvertSchema(json.RawMessage(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "" {
				b, _ := json.Marshal(got)
				if len(b) == 0 || len(b) > 1<<20 || !strings.Contains(string(b), `"next"`) {
					t.Fatalf("recursive schema converted to %d bytes", len(b))
				}
				return
			}
			llmtest.AssertJSONEqual(t, got, c.want)
		})
	}
}

func TestCleanJSONSchema(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"empty", ``, `null`},
		{"no properties", `{"type":"object","properties":{},"additionalProperties":false}`, `null`},
		{"meta keywords dropped, the rest kept",
			`{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"x","type":"object","additionalProperties":false,
			  "$defs":{"P":{"$schema":"y","type":"object","properties":{"a":{"type":["string","null"]}}}},
			  "properties":{"p":{"$ref":"#/$defs/P"},"$schema":{"type":"string"}}}`,
			`{"type":"object","additionalProperties":false,"$defs":{"P":{"type":"object","properties":{"a":{"type":["string","null"]}}}},
			  "properties":{"p":{"$ref":"#/$defs/P"},"$schema":{"type":"string"}}}`},
		{"root ref gets type object", `{"$ref":"#/$defs/I","$defs":{"I":{"type":"object","properties":{"x":{"type":"number"}}}}}`,
			`{"type":"object","$ref":"#/$defs/I","$defs":{"I":{"type":"object","properties":{"x":{"type":"number"}}}}}`},
		{"map-like object kept", `{"type":"object","additionalProperties":{"type":"string"}}`,
			`{"type":"object","additionalProperties":{"type":"string"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := CleanJSONSchema(json.RawMessage(c.in))
			if err != nil {
				t.Fatal(err)
			}
			if c.want == "null" {
				if got != nil {
					t.Fatalf("got %s, want no parameters", got)
				}
				return
			}
			var g any
			if err := json.Unmarshal(got, &g); err != nil {
				t.Fatal(err)
			}
			llmtest.AssertJSONEqual(t, g, c.want)
		})
	}
	for in, want := range map[string]string{
		`{"type":`:                     "not valid JSON",
		`[1]`:                          "must be a JSON object",
		`{"type":"array","items":{}}`:  "must describe an object",
		`{"type":["object","string"]}`: "must describe an object",
	} {
		if _, err := CleanJSONSchema(json.RawMessage(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CleanJSONSchema(%s) error %v, want %q", in, err, want)
		}
	}
}

func TestConvertSchemaErrors(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":`:          "not valid JSON",
		`[1,2]`:             "must be a JSON object",
		`"string"`:          "must be a JSON object",
		`{"type":"string"}`: "must describe an object",
	} {
		if _, err := ConvertSchema(json.RawMessage(in)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ConvertSchema(%s) error %v, want %q", in, err, want)
		}
	}
}

// allowedSchemaKeys are the Schema fields of the Gemini API
// (https://ai.google.dev/api/caching#Schema).
func allowedSchemaKeys() map[string]bool {
	m := map[string]bool{}
	for _, k := range strings.Fields("type format description nullable enum maxItems minItems properties required " +
		"minProperties maxProperties minLength maxLength pattern example anyOf propertyOrdering default items minimum maximum") {
		m[k] = true
	}
	return m
}

// checkKeys walks a converted schema and reports keys Gemini would reject.
func checkKeys(t *testing.T, path string, node any, allowed map[string]bool) {
	t.Helper()
	m, ok := node.(map[string]any)
	if !ok {
		return
	}
	for k, v := range m {
		if !allowed[k] {
			t.Errorf("%s: key %q is not part of Gemini's Schema", path, k)
		}
		switch k {
		case "properties":
			for name, p := range v.(map[string]any) {
				checkKeys(t, path+"."+name, p, allowed)
			}
		case "items":
			checkKeys(t, path+"[]", v, allowed)
		case "anyOf":
			for _, s := range v.([]any) {
				checkKeys(t, path+"|", s, allowed)
			}
		case "type":
			if s, _ := v.(string); s != strings.ToUpper(s) {
				t.Errorf("%s: type %q is not an enum name", path, s)
			}
		}
	}
}

// TestConvertInferredSchema converts the kind of schema aidex's tool
// registry infers from Go structs (github.com/google/jsonschema-go) and checks
// that only Gemini Schema keys remain.
func TestConvertInferredSchema(t *testing.T) {
	type edit struct {
		Old string `json:"old" jsonschema:"text to replace"`
		New string `json:"new"`
	}
	type args struct {
		Path    string            `json:"path" jsonschema:"file path"`
		Edits   []edit            `json:"edits"`
		Limit   *int              `json:"limit,omitempty"`
		Env     map[string]string `json:"env,omitempty"`
		Verbose bool              `json:"verbose,omitempty"`
		Ratio   float64           `json:"ratio,omitempty"`
	}
	s, err := jsonschema.For[args](nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ConvertSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	var generic any
	if err := json.Unmarshal([]byte(llmtest.JSONOf(t, got)), &generic); err != nil {
		t.Fatal(err)
	}
	checkKeys(t, "$", generic, allowedSchemaKeys())
	props := got["properties"].(map[string]any)
	if edits := props["edits"].(map[string]any); edits["items"].(map[string]any)["type"] != "OBJECT" {
		t.Errorf("edits: %s", llmtest.JSONOf(t, edits))
	}
	if desc := props["path"].(map[string]any)["description"]; desc != "file path" {
		t.Errorf("path description %v", desc)
	}
	if req := llmtest.JSONOf(t, got["required"]); !strings.Contains(req, `"path"`) || strings.Contains(req, `"limit"`) {
		t.Errorf("required %s", req)
	}
}
