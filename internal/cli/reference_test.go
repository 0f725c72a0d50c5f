package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/ui/chat"
	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// readDoc returns a page under docs/.
func readDoc(t *testing.T, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// exitCodes returns the process exit codes cli.go declares (its Exit
// constants), code → constant name.
func exitCodes(t *testing.T) map[int]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "cli.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	codes := map[int]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			vs := s.(*ast.ValueSpec)
			for i, name := range vs.Names {
				if !strings.HasPrefix(name.Name, "Exit") || i >= len(vs.Values) {
					continue
				}
				lit, ok := vs.Values[i].(*ast.BasicLit)
				n, err := strconv.Atoi(lit.Value)
				if !ok || err != nil {
					t.Fatalf("cli.go: %s is not an integer literal", name.Name)
				}
				codes[n] = name.Name
			}
		}
	}
	if len(codes) == 0 {
		t.Fatal("cli.go declares no Exit constants")
	}
	return codes
}

// The exit-code table of docs/cli.md lists exactly the codes cli.go
// declares: a code added to the code and not documented, or documented
// and no longer used, fails here.
func TestExitCodesDocumented(t *testing.T) {
	page := readDoc(t, "cli.md")
	_, table, ok := strings.Cut(page, "\n## Exit codes\n")
	if !ok {
		t.Fatal("docs/cli.md has no ## Exit codes section")
	}
	table, _, _ = strings.Cut(table, "\n#")
	documented := map[int]bool{}
	for _, m := range regexp.MustCompile(`(?m)^\| (\d+) \|`).FindAllStringSubmatch(table, -1) {
		n, _ := strconv.Atoi(m[1])
		documented[n] = true
	}
	codes := exitCodes(t)
	for n, name := range codes {
		if !documented[n] {
			t.Errorf("exit code %d (%s) is not in the table of docs/cli.md#exit-codes", n, name)
		}
	}
	for n := range documented {
		if _, ok := codes[n]; !ok {
			t.Errorf("docs/cli.md#exit-codes documents exit code %d, which cli.go does not declare", n)
		}
	}
	help := exitCodesHelp
	for n := range codes {
		if !regexp.MustCompile(`(?m)^  ` + strconv.Itoa(n) + ` `).MatchString(help) {
			t.Errorf("aidex --help does not list exit code %d", n)
		}
	}
}

// Every command `aidex --help` lists has a line in the hand-written
// command table of docs/cli.md (the generated reference below it has
// them all by construction), and every `aidex WORD` that table names is a
// command.
func TestEveryCommandInTheCommandTable(t *testing.T) {
	page := readDoc(t, "cli.md")
	_, table, _ := strings.Cut(page, "\n## Running aidex\n")
	table, _, _ = strings.Cut(table, "\n## ")
	root := newRootCmd(newApp(Process{Chat: chat.Run}))
	names := map[string]bool{}
	for _, c := range root.Commands() {
		if !c.IsAvailableCommand() {
			continue
		}
		names[c.Name()] = true
		if !strings.Contains(table, "`aidex "+c.Name()) {
			t.Errorf("aidex %s is not in the command table of docs/cli.md#running-aidex", c.Name())
		}
	}
	for _, m := range regexp.MustCompile("(?m)^\\| `aidex ([a-z]+)").FindAllStringSubmatch(table, -1) {
		if !names[m[1]] {
			t.Errorf("docs/cli.md#running-aidex documents aidex %s, which is not a command", m[1])
		}
	}
}

// The README's common tasks are command lines aidex takes: each aidex
// call of its "Ten common tasks" block names a command that exists and
// flags that command has, with valid values where cobra checks them.
func TestReadmeTasksAreValidCommandLines(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, block, _ := strings.Cut(string(data), "\n## Ten common tasks\n")
	_, block, _ = strings.Cut(block, "```sh\n")
	block, _, _ = strings.Cut(block, "```")
	file, err := syntax.NewParser().Parse(strings.NewReader(block), "README.md")
	if err != nil {
		t.Fatalf("the README's tasks are not shell: %v", err)
	}
	calls := 0
	syntax.Walk(file, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok || len(call.Args) == 0 || call.Args[0].Lit() != "aidex" {
			return true
		}
		calls++
		words, err := expand.Fields(nil, call.Args[1:]...)
		if err != nil {
			t.Fatal(err)
		}
		root := newRootCmd(newApp(Process{Chat: chat.Run}))
		cmd, args, err := root.Find(words)
		if err != nil {
			t.Errorf("README: aidex %s: %v", strings.Join(words, " "), err)
			return true
		}
		if err := cmd.ParseFlags(args); err != nil {
			t.Errorf("README: aidex %s: %v", strings.Join(words, " "), err)
		} else if cmd == root && len(cmd.Flags().Args()) > 0 {
			// the tasks give prompts with -p: a bare word here is a command aidex lacks
			t.Errorf("README: aidex %s: %q is not a command", strings.Join(words, " "), cmd.Flags().Args()[0])
		}
		return true
	})
	if calls < 10 {
		t.Errorf("the README's common tasks have %d aidex calls, want at least 10", calls)
	}
}
