package archtest

import (
	"go/ast"
	"strings"
	"testing"
)

// eagerCompilers are the calls that must not run during package
// initialisation: every package of the module is linked into the aidex
// binary, so Go runs all their package-level initialisers on every start,
// `aidex --version` included (issue 21: start-up ≤ 10 ms). Compile on first
// use instead: var re = sync.OnceValue(func() *regexp.Regexp { ... }).
var eagerCompilers = map[string]bool{
	"regexp.MustCompile": true, "regexp.Compile": true,
	"regexp.MustCompilePOSIX": true, "regexp.CompilePOSIX": true,
}

// TestNoCompileAtInit fails when a non-test file linked into aidex (under
// internal/ or cmd/) compiles a regular expression in a package-level
// variable's initialiser or in func init. The benchmark programs under
// bench/ are separate binaries.
func TestNoCompileAtInit(t *testing.T) {
	for _, s := range parseModule(t) {
		if strings.HasSuffix(s.path, "_test.go") || !strings.HasPrefix(s.path, "internal/") && !strings.HasPrefix(s.path, "cmd/") {
			continue
		}
		for _, d := range s.file.Decls {
			for _, n := range initTimeNodes(d) {
				inspectInitTime(n, func(call *ast.CallExpr, name string) {
					t.Errorf("%s:%d: %s runs at package init (on every aidex start): compile on first use with sync.OnceValue",
						s.path, s.fset.Position(call.Pos()).Line, name)
				})
			}
		}
	}
}

// initTimeNodes returns the parts of a top-level declaration Go evaluates
// during package initialisation: variable initialisers and init bodies.
func initTimeNodes(d ast.Decl) []ast.Node {
	var out []ast.Node
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Recv == nil && d.Name.Name == "init" && d.Body != nil {
			out = append(out, d.Body)
		}
	case *ast.GenDecl:
		for _, sp := range d.Specs {
			if vs, ok := sp.(*ast.ValueSpec); ok {
				for _, v := range vs.Values {
					out = append(out, v)
				}
			}
		}
	}
	return out
}

// inspectInitTime reports every eager compiler call in n that runs when n
// is evaluated: function literals are skipped unless called on the spot.
func inspectInitTime(n ast.Node, report func(*ast.CallExpr, string)) {
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if fl, ok := n.Fun.(*ast.FuncLit); ok {
				inspectInitTime(fl.Body, report)
			}
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && eagerCompilers[x.Name+"."+sel.Sel.Name] {
					report(n, x.Name+"."+sel.Sel.Name)
				}
			}
		}
		return true
	})
}
