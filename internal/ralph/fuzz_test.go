package ralph

import (
	"testing"
)

// FuzzParseList checks that any file content either fails with an error
// or loads into a list that survives a rewrite unchanged.
func FuzzParseList(f *testing.F) {
	for _, s := range []string{
		``, `[]`, `{"tasks":[]}`, `{"tasks":null,"x":1}`,
		`{"schema_version":1,"tasks":[{"id":"1","title":"a","status":"done","notes":"n"}]}`,
		`[{"title":"t","priority":3,"depends_on":"T-9","acceptance_criteria":["a","a"]}]`,
		`{"tasks":[{"id":"US-001","title":"s","task_type":"story","status":"in_progress","attempts":-2}]}`,
		`{"tasks":[{"title":"a"},{"title":"b","id":"T-001"}]}`,
		`{"tasks":[{"id":"x","title":"y","extra":{"deep":[1,2,{"k":"\u003c"}]}}]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := parseList("f", data)
		if err != nil {
			return
		}
		out, err := l.encode()
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		l2, err := parseList("f", out)
		if err != nil {
			t.Fatalf("reload of %s: %v", out, err)
		}
		out2, err := l2.encode()
		if err != nil {
			t.Fatalf("encode 2: %v", err)
		}
		if string(out) != string(out2) {
			t.Fatalf("rewrite changed the file:\n%s\n%s", out, out2)
		}
	})
}

// FuzzParseImport checks that import never panics and yields titled,
// valid tasks.
func FuzzParseImport(f *testing.F) {
	for _, s := range []string{
		"- [ ] a\n", "- [x] [P0] b\n  - c\n  text\n", "* [ ]\n", "\t- [ ] tab\n\t\t- crit\n",
		`["a", {"title":"b"}]`, `{"tasks":[{"title":"c"}]}`, "- [ ] [P9] x", "+ [X] done\n\n\n  after blank\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		tasks, err := ParseImport("f", data)
		if err != nil {
			return
		}
		if len(tasks) == 0 {
			t.Fatal("no error and no tasks")
		}
		for _, tk := range tasks {
			if tk.Title == "" {
				t.Fatalf("task without title from %q", data)
			}
			if _, err := ParseStatus(string(tk.Status)); err != nil {
				t.Fatalf("bad status %q", tk.Status)
			}
		}
	})
}
