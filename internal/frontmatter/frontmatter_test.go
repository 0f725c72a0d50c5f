package frontmatter

import (
	"errors"
	"testing"
)

type meta struct {
	Description  string   `yaml:"description"`
	ArgumentHint string   `yaml:"argument-hint"`
	AllowedTools []string `yaml:"allowed-tools"`
}

func TestParse(t *testing.T) {
	in := "---\r\ndescription: Review a file\r\nargument-hint: <path>\r\nallowed-tools: [Read, Grep]\r\nunknown: 1\r\n---\r\nReview $ARGUMENTS\n"
	var m meta
	body, err := Parse([]byte(in), &m)
	if err != nil {
		t.Fatal(err)
	}
	if m.Description != "Review a file" || m.ArgumentHint != "<path>" || len(m.AllowedTools) != 2 {
		t.Fatalf("meta %+v", m)
	}
	if string(body) != "Review $ARGUMENTS\n" {
		t.Fatalf("body %q", body)
	}
}

func TestNoFrontMatter(t *testing.T) {
	var m meta
	body, err := Parse([]byte("just text\n---\n"), &m)
	if err != nil || string(body) != "just text\n---\n" || m.Description != "" {
		t.Fatalf("body %q err %v meta %+v", body, err, m)
	}
}

func TestUnclosed(t *testing.T) {
	var m meta
	if _, err := Parse([]byte("---\ndescription: x\n"), &m); !errors.Is(err, ErrUnclosed) {
		t.Fatalf("err %v", err)
	}
}

func TestBadYAML(t *testing.T) {
	var m meta
	_, err := Parse([]byte("---\ndescription: [unclosed\n---\nbody"), &m)
	if err == nil {
		t.Fatal("want a YAML error")
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("---\na: b\n---\nbody"))
	f.Add([]byte("---\n"))
	f.Add([]byte("\xef\xbb\xbf---\r\n---\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m map[string]any
		_, _ = Parse(data, &m)
	})
}
