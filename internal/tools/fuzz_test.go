package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
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
	reg := NewRegistry()
	if err := reg.Register(FileTools()...); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, name string, args []byte) {
		p, err := reg.Prepare(name, args)
		if err != nil {
			var te *Error
			if !errors.As(err, &te) || te.Message == "" || te.Category != CategoryValidation {
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

// FuzzGrepData checks the whole-buffer search against a line-by-line
// reference (ripgrep's semantics).
func FuzzGrepData(f *testing.F) {
	patterns := []string{`a`, `^\s*b`, `a$`, `x*`, `\s+`, `(?i)AB`, `a.b`, `^$`, `ab\s*c`, `\bb+c`, `a\nb`}
	f.Add(uint8(0), []byte("a\nb\n"))
	f.Add(uint8(1), []byte("\n\n  b\r\nb"))
	f.Add(uint8(4), []byte(" \n\t\n"))
	f.Add(uint8(7), []byte("\n\na\n\n"))
	f.Fuzz(func(t *testing.T, pi uint8, data []byte) {
		pat := patterns[int(pi)%len(patterns)]
		re, err := compilePattern(pat, false)
		if err != nil {
			t.Fatal(err)
		}
		got := grepData(re, nil, data, 0)
		if lit := requiredLiteral(pat, false); lit != nil {
			if withLit := grepData(re, lit, data, 0); !slices.Equal(got, withLit) {
				t.Fatalf("literal prefilter %q changes results on %q: %v vs %v", lit, data, withLit, got)
			}
		}
		var want []GrepLine
		for i, l := range splitLinesKeep(string(data)) {
			text := trimEOL(l)
			if lineMatch(re, strings.TrimSuffix(l, "\n")) {
				want = append(want, GrepLine{Num: i + 1, Text: text, Match: true})
			}
		}
		if len(got) != len(want) {
			t.Fatalf("pattern %q on %q: got %v, want %v", re, data, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("pattern %q on %q: got %v, want %v", re, data, got, want)
			}
		}
	})
}

func lineMatch(re *regexp.Regexp, line string) bool { return re.MatchString(line) }
