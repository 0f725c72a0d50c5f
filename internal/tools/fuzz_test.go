package tools_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/zelvior/aidex/internal/tools"
)

func FuzzPrepare(f *testing.F) {
	seeds := []struct{ name, args string }{
		{"read_file", `{"path":"a.txt","offset":"5"}`},
		{"Write_File", `{"file_path":"a","contents":"x"}`},
		{"edit_file", `{"path":"a","old_str":"x","new_str":"y","replaceAll":"true"}`},
		{"grep", `{"query":"x","-C":2,"glob":"*.go"}`},
		{"write_file", `{"path": "a.txt"`},
		{"write_file", `{"path":"a","path":"b","content":""}`},
		{"write_file", `{"path":"a.txt","content":"\ud800"}`},
		{"bash\x00rm", `{}`},
		{"list_directory", ``},
		{"read_file", `"{\"path\":\"a\"}"`},
		{"move_file", `{"src":"a","dst":["b"]}`},
		{"patch_lines", `{"path":"a","start":1e300,"end":-0,"content":null}`},
	}
	for _, s := range seeds {
		f.Add(s.name, []byte(s.args))
	}
	reg := tools.NewRegistry()
	if err := reg.Register(fileTools()...); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		p, err := reg.Prepare(name, args)
		if err != nil {
			var te *tools.Error
			if !errors.As(err, &te) || te.Message == "" || te.Category != tools.CategoryValidation {
				t.Fatalf("Prepare(%q, %q): bad error %#v", name, args, err)
			}
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(p.Args, &obj); err != nil {
			t.Fatalf("canonical args are not a JSON object: %q", p.Args)
		}
		again, err := reg.Prepare(p.Def.Name, p.Args)
		if err != nil {
			t.Fatalf("canonical args %q do not prepare again: %v", p.Args, err)
		}
		if !bytes.Equal(again.Args, p.Args) {
			t.Fatalf("normalisation is not idempotent: %q -> %q", p.Args, again.Args)
		}
		for _, pa := range p.Paths {
			if pa.Value == "" || bytes.IndexByte([]byte(pa.Value), 0) >= 0 {
				t.Fatalf("empty or NUL path slipped through: %q", pa.Value)
			}
		}
	})
}
