package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// The limits every Go file of the module holds, tests included.
const (
	maxFuncLines  = 60  // body lines, not counting lines of composite-literal tables
	maxFileLines  = 800 // lines
	maxIfaceSize  = 6   // methods (an embedded interface counts as one)
	maxCyclomatic = 25  // McCabe, counted as gocyclo counts it
	tableMinLines = 4   // a composite literal spanning more lines is a table
	modulePath    = "github.com/zelvior/aidex/"
)

// source is one parsed file of the module.
type source struct {
	path  string // slash path below the module root
	fset  *token.FileSet
	file  *ast.File
	lines int
	// generated marks a file with Go's "Code generated ... DO NOT EDIT."
	// line (go generate's output).
	generated bool
}

// generatedFile matches the line that marks a generated Go file
// (https://go.dev/s/generatedcode).
var generatedFile = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)

// parseModule parses every .go file below the module root.
func parseModule(t *testing.T) []source {
	t.Helper()
	root := moduleRoot(t)
	var out []source
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && p != root {
			return filepath.SkipDir
		}
		if d.IsDir() && p != root && isModule(p) {
			return filepath.SkipDir // another module (third_party's patched copies)
		}
		if d.IsDir() || !strings.HasSuffix(p, ".go") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, p, data, 0)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out = append(out, source{path: filepath.ToSlash(rel), fset: fset, file: f, lines: strings.Count(string(data), "\n"),
			generated: generatedFile.Match(data)})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(out) < 50 {
		t.Fatalf("found only %d Go files below %s", len(out), root)
	}
	return out
}

// moduleRoot is the directory holding go.mod, upwards from the test's.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("go.mod not found")
		}
		dir = parent
	}
}

func TestFileSize(t *testing.T) {
	for _, s := range parseModule(t) {
		if s.lines > maxFileLines && !s.generated { // generated files are data (catalog_gen.go)
			t.Errorf("%s: %d lines, the limit is %d: split it by theme", s.path, s.lines, maxFileLines)
		}
	}
}

func TestFunctionSize(t *testing.T) {
	for _, s := range parseModule(t) {
		for _, d := range s.file.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			if n := bodyLines(s.fset, fn.Body); n > maxFuncLines {
				t.Errorf("%s:%d: %s is %d lines (tables excluded), the limit is %d", s.path, s.fset.Position(fn.Pos()).Line, fn.Name.Name, n, maxFuncLines)
			}
		}
	}
}

// bodyLines counts a body's lines without those inside composite
// literals of tableMinLines lines or more (data tables).
func bodyLines(fset *token.FileSet, body *ast.BlockStmt) int {
	n := fset.Position(body.Rbrace).Line - fset.Position(body.Lbrace).Line - 1
	ast.Inspect(body, func(node ast.Node) bool {
		c, ok := node.(*ast.CompositeLit)
		if !ok {
			return true
		}
		span := fset.Position(c.Rbrace).Line - fset.Position(c.Lbrace).Line
		if span >= tableMinLines {
			n -= span - 1
			return false
		}
		return true
	})
	return n
}

func TestInterfaceSize(t *testing.T) {
	for _, s := range parseModule(t) {
		ast.Inspect(s.file, func(node ast.Node) bool {
			it, ok := node.(*ast.InterfaceType)
			if ok && it.Methods != nil && len(it.Methods.List) > maxIfaceSize {
				t.Errorf("%s:%d: an interface of %d methods, the limit is %d: define smaller ones where they are used",
					s.path, s.fset.Position(it.Pos()).Line, len(it.Methods.List), maxIfaceSize)
			}
			return true
		})
	}
}

func TestCyclomaticComplexity(t *testing.T) {
	type fn struct {
		where string
		n     int
	}
	var all []fn
	for _, s := range parseModule(t) {
		for _, d := range s.file.Decls {
			f, ok := d.(*ast.FuncDecl)
			if !ok || f.Body == nil {
				continue
			}
			all = append(all, fn{s.path + ":" + strconv.Itoa(s.fset.Position(f.Pos()).Line) + " " + f.Name.Name, cyclomatic(f)})
		}
	}
	sort.Slice(all, func(i, j int) bool { return all[i].n > all[j].n })
	for _, f := range all {
		if f.n > maxCyclomatic {
			t.Errorf("%s: cyclomatic complexity %d, the limit is %d", f.where, f.n, maxCyclomatic)
		}
	}
	for i := 0; i < 10 && i < len(all); i++ {
		t.Logf("%3d %s", all[i].n, all[i].where)
	}
}

// cyclomatic is 1 plus the decision points of f: if, for, range, each
// non-default case and select case, && and ||.
func cyclomatic(f *ast.FuncDecl) int {
	n := 1
	ast.Inspect(f, func(node ast.Node) bool {
		switch x := node.(type) {
		case *ast.IfStmt, *ast.ForStmt, *ast.RangeStmt:
			n++
		case *ast.CaseClause:
			if x.List != nil {
				n++
			}
		case *ast.CommClause:
			if x.Comm != nil {
				n++
			}
		case *ast.BinaryExpr:
			if x.Op == token.LAND || x.Op == token.LOR {
				n++
			}
		}
		return true
	})
	return n
}

// isModule reports whether dir holds a go.mod: the root of another module,
// whose files are not this module's.
func isModule(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}
