package archtest

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"slices"
	"strings"
	"testing"
)

// frontEndFloor is the floor of the front ends in floors.
func frontEndFloor(t *testing.T) int {
	i := slices.IndexFunc(floors, func(f struct {
		name     string
		patterns []string
	}) bool {
		return strings.HasPrefix(f.name, "front ends")
	})
	if i < 0 {
		t.Fatal("floors has no front-end floor")
	}
	return i
}

// ownBuilds returns where f builds a session or an engine of its own: an
// agent.Engine or agent.Conversation literal, or a stored session created
// through the store (Store().Create) instead of app's Service.Pick.
func ownBuilds(s source) []string {
	agentName := ""
	for _, imp := range s.file.Imports {
		if strings.Trim(imp.Path.Value, `"`) == modulePath+"internal/agent" {
			agentName = "agent"
			if imp.Name != nil {
				agentName = imp.Name.Name
			}
		}
	}
	var at []string
	ast.Inspect(s.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CompositeLit:
			if sel, ok := n.Type.(*ast.SelectorExpr); ok && (sel.Sel.Name == "Engine" || sel.Sel.Name == "Conversation") {
				if x, ok := sel.X.(*ast.Ident); ok && agentName != "" && x.Name == agentName {
					at = append(at, s.fset.Position(n.Pos()).String()+": agent."+sel.Sel.Name+" literal")
				}
			}
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && sel.Sel.Name == "Create" {
				if inner, ok := sel.X.(*ast.CallExpr); ok {
					if isel, ok := inner.Fun.(*ast.SelectorExpr); ok && isel.Sel.Name == "Store" {
						at = append(at, s.fset.Position(n.Pos()).String()+": Store().Create")
					}
				}
			}
		}
		return true
	})
	return at
}

// TestNoFrontEndBuildsItsOwnSession fails when a package above app (a
// front end, cli, a program) builds its own engine or session: engines
// come from app.Service.Session (internal/app/engine.go builds them), new
// stored sessions from app.Service.Pick.
func TestNoFrontEndBuildsItsOwnSession(t *testing.T) {
	fe := frontEndFloor(t)
	for _, s := range parseModule(t) {
		if strings.HasSuffix(s.path, "_test.go") || floorOf(path.Dir(s.path)) < fe {
			continue
		}
		for _, at := range ownBuilds(s) {
			t.Errorf("%s: a front end builds its own session or engine; use app.Service.Pick and app.Service.Session", at)
		}
	}
}

// TestOwnBuildsSeesThem checks the check on a front end that builds all
// three.
func TestOwnBuildsSeesThem(t *testing.T) {
	src := `package web
import a "github.com/zelvior/aidex/internal/agent"
func f(s svc) { _ = &a.Engine{}; _ = &a.Conversation{ID: "x"}; s.Store().Create(nil, "", "", "") }`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "internal/ui/web/x.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := ownBuilds(source{path: "internal/ui/web/x.go", fset: fset, file: f}); len(got) != 3 {
		t.Fatalf("found %v, want the three builds", got)
	}
}
