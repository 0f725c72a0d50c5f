package slash

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func names(cs []Command) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.Name
	}
	return out
}

// The web chat keeps exactly the safe subset of commands it had, and
// refuses the unsafe ones with a reason (issue 23 item 11, issue 34).
func TestWebSubsetPinned(t *testing.T) {
	want := []string{"/help", "/model", "/provider", "/mode", "/permissions", "/clear", "/compact", "/cost", "/tasks"}
	if got := names(For(Web)); !slices.Equal(got, want) {
		t.Errorf("the web runs %q, want exactly %q", got, want)
	}
	refused := []string{"/config", "/load", "/export", "/edit", "/sandbox", "/resume", "/undo", "/init", "/exit", "/quit", "/q", "/plugin"}
	for _, n := range refused {
		if why, ok := Refusal(n, Web); !ok || why == "" {
			t.Errorf("%s: not refused in the web chat", n)
		}
	}
	for _, c := range Builtins() {
		_, ok := Refusal(c.Name, Web)
		if c.Runs(Web) && ok {
			t.Errorf("%s: runs on the web and is refused there", c.Name)
		}
		if ok && !slices.Contains(refused, c.Name) {
			t.Errorf("%s: newly refused in the web chat: add it to this test's list", c.Name)
		}
	}
}

// Every row is well formed: a unique name and aliases with their slash,
// help text, at least one front end, and reasons only for front ends that
// do not run the command.
func TestTableRows(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Builtins() {
		for _, n := range c.Names() {
			if !strings.HasPrefix(n, "/") || strings.ContainsAny(n, " \t") || seen[n] {
				t.Errorf("%s: bad or repeated name %q", c.Name, n)
			}
			seen[n] = true
			if got, ok := Find(n); !ok || got.Name != c.Name {
				t.Errorf("Find(%q) = %q, %v", n, got.Name, ok)
			}
		}
		if c.Help == "" || c.Fronts == 0 || c.Fronts&^All != 0 {
			t.Errorf("%s: help %q, fronts %v", c.Name, c.Help, c.Fronts)
		}
		if c.Fronts&TUI != 0 != (c.Fronts&Line != 0) {
			t.Errorf("%s: the terminal UI and the line mode run one table", c.Name)
		}
		for f, why := range c.Refused {
			if c.Runs(f) || why == "" {
				t.Errorf("%s: a reason %q for %v, which runs it", c.Name, why, f)
			}
		}
	}
	if _, ok := Find("/nope"); ok {
		t.Error("Find(/nope)")
	}
	if _, ok := Refusal("/compact", Web); ok {
		t.Error("/compact refused on the web")
	}
}

// docsTable is the table docs/commands.md shows: one row a command, a
// column a front end.
func docsTable() string {
	var b strings.Builder
	b.WriteString("| Command | TUI | Line mode | Web chat | ACP | `-p` | Help |\n|---|---|---|---|---|---|---|\n")
	for _, c := range Builtins() {
		usage := strings.TrimSpace(c.Name + " " + c.Args)
		for _, a := range c.Aliases {
			usage += ", " + a
		}
		fmt.Fprintf(&b, "| `%s` |", strings.ReplaceAll(usage, "|", `\|`))
		for _, f := range Fronts() {
			mark := " "
			switch _, refused := c.Refused[f]; {
			case c.Runs(f):
				mark = " ✓ "
			case refused:
				mark = " refused "
			}
			b.WriteString(mark + "|")
		}
		fmt.Fprintf(&b, " %s |\n", strings.ReplaceAll(c.Help, "|", `\|`))
	}
	return b.String()
}

// docs/commands.md lists every command with the front ends that run it,
// from this table.
func TestDocsPage(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "commands.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := docsTable(); !strings.Contains(string(data), want) {
		t.Errorf("docs/commands.md does not hold the table of internal/ui/slash; put this in it:\n%s", want)
	}
}

func TestFrontString(t *testing.T) {
	for f, want := range map[Front]string{TUI: "tui", Web: "web", Terminal: "tui+line", All: "tui+line+web+acp+headless", 0: ""} {
		if got := f.String(); got != want {
			t.Errorf("%d.String() = %q, want %q", f, got, want)
		}
	}
}

// BenchmarkFind is the lookup every web chat message, ACP prompt and -p
// prompt that starts with a slash makes.
func BenchmarkFind(b *testing.B) {
	for b.Loop() {
		if _, ok := Find("/tasks"); !ok {
			b.Fatal("no /tasks")
		}
	}
}
