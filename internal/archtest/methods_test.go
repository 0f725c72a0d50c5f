package archtest

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"sort"
	"strings"
	"testing"
)

// maxMethods is the most methods (exported and not, value and pointer
// receivers, non-test files) one type in internal/app, internal/app/* or
// internal/ui/... may have (issue 34). A type past it holds more than one
// concern: split the concern out into its own type the first one holds.
const maxMethods = 40

// methodCeilings are temporary ceilings for the app types still above
// maxMethods. A ceiling only goes down (issue 34): lower it when a change
// moves methods out, and delete the line once the type is at maxMethods.
var methodCeilings = map[string]int{}

// methodRuled reports whether the package dir falls under the method rule.
func methodRuled(dir string) bool {
	return dir == "internal/app" || strings.HasPrefix(dir, "internal/app/") ||
		strings.HasPrefix(dir, "internal/ui/")
}

// countMethods adds the methods f declares to counts, keyed
// "dir.Type" with dir the file's package directory.
func countMethods(counts map[string]int, s source) {
	dir := path.Dir(s.path)
	for _, d := range s.file.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Recv == nil || len(fd.Recv.List) == 0 {
			continue
		}
		if name := recvTypeName(fd.Recv.List[0].Type); name != "" {
			counts[dir+"."+name]++
		}
	}
}

// recvTypeName returns the type name of a receiver expression: T, *T,
// T[P] and *T[P] all give T.
func recvTypeName(e ast.Expr) string {
	switch e := e.(type) {
	case *ast.StarExpr:
		return recvTypeName(e.X)
	case *ast.ParenExpr:
		return recvTypeName(e.X)
	case *ast.IndexExpr:
		return recvTypeName(e.X)
	case *ast.IndexListExpr:
		return recvTypeName(e.X)
	case *ast.Ident:
		return e.Name
	}
	return ""
}

// methodViolations returns one line per type above its limit.
func methodViolations(counts map[string]int) []string {
	var out []string
	for typ, n := range counts {
		limit := maxMethods
		if c, ok := methodCeilings[typ]; ok {
			limit = c
		}
		if n > limit {
			out = append(out, fmt.Sprintf("%s has %d methods, at most %d: split a cohesive concern out into its own type", typ, n, limit))
		}
	}
	sort.Strings(out)
	return out
}

// TestMethodsPerType fails when a type in internal/app, internal/app/* or
// internal/ui/... has more methods than maxMethods (or its ceiling).
func TestMethodsPerType(t *testing.T) {
	counts := map[string]int{}
	for _, s := range parseModule(t) {
		if methodRuled(path.Dir(s.path)) && !strings.HasSuffix(s.path, "_test.go") {
			countMethods(counts, s)
		}
	}
	for _, v := range methodViolations(counts) {
		t.Error(v)
	}
	for typ, ceiling := range methodCeilings {
		if n := counts[typ]; n < ceiling {
			t.Logf("%s has %d methods: lower its ceiling to %d", typ, n, max(n, maxMethods))
		}
	}
}

// TestMethodsPerTypeSeesThem checks the counter on a planted type with
// maxMethods+1 methods over both receiver kinds, and on a generic one.
func TestMethodsPerTypeSeesThem(t *testing.T) {
	var b strings.Builder
	b.WriteString("package tui\ntype big struct{}\ntype g[T any] struct{}\nfunc (g[T]) a() {}\nfunc free() {}\n")
	for i := range maxMethods + 1 {
		recv := "b big"
		if i%2 == 1 {
			recv = "b *big"
		}
		fmt.Fprintf(&b, "func (%s) m%d() {}\n", recv, i)
	}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "internal/ui/tui/x.go", b.String(), 0)
	if err != nil {
		t.Fatal(err)
	}
	counts := map[string]int{}
	countMethods(counts, source{path: "internal/ui/tui/x.go", fset: fset, file: f})
	if counts["internal/ui/tui.big"] != maxMethods+1 || counts["internal/ui/tui.g"] != 1 {
		t.Fatalf("counted %v", counts)
	}
	if v := methodViolations(counts); len(v) != 1 || !strings.Contains(v[0], "tui.big has 41") {
		t.Fatalf("violations %q, want the planted type", v)
	}
	if !methodRuled("internal/app/engine") || !methodRuled("internal/ui/web") || methodRuled("internal/agent") {
		t.Fatal("methodRuled covers the wrong packages")
	}
}
