package archtest

import (
	"go/ast"
	"strconv"
	"strings"
	"testing"
)

// engineBuilder is the one file outside internal/agent that constructs an
// agent.Engine: every other engine is derived from one it built
// (agent.Engine.Clone, WithModel), so every path keeps its hooks, rules,
// sandbox, budget and checkpoints (issue 29).
const engineBuilder = "internal/app/engine.go"

// engineLiterals returns the positions of agent.Engine composite literals
// in f (under whatever name f imports the agent package).
func engineLiterals(s source) []string {
	name := ""
	for _, imp := range s.file.Imports {
		if p, _ := strconv.Unquote(imp.Path.Value); p == modulePath+"internal/agent" {
			name = "agent"
			if imp.Name != nil {
				name = imp.Name.Name
			}
		}
	}
	if name == "" {
		return nil
	}
	var at []string
	ast.Inspect(s.file, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		if sel, ok := lit.Type.(*ast.SelectorExpr); ok && sel.Sel.Name == "Engine" {
			if x, ok := sel.X.(*ast.Ident); ok && x.Name == name {
				at = append(at, s.fset.Position(lit.Pos()).String())
			}
		}
		return true
	})
	return at
}

// Only engineBuilder constructs agent.Engine values (tests aside): a
// hand-made engine elsewhere is how a custom command's turn once lost
// the user's hooks.
func TestOneEngineBuilder(t *testing.T) {
	found := false
	for _, s := range parseModule(t) {
		if strings.HasSuffix(s.path, "_test.go") || strings.HasPrefix(s.path, "internal/agent/") {
			continue
		}
		lits := engineLiterals(s)
		if s.path == engineBuilder {
			found = len(lits) > 0
			continue
		}
		for _, at := range lits {
			t.Errorf("%s constructs an agent.Engine: build engines in %s (Runtime.Engine) and derive others with Engine.Clone or Engine.WithModel", at, engineBuilder)
		}
	}
	if !found {
		t.Errorf("%s no longer constructs agent.Engine: update engineBuilder", engineBuilder)
	}
}
