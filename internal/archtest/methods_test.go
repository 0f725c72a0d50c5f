package archtest

import (
	"go/ast"
	"path"
	"sort"
	"strings"
	"testing"
)

// maxMethods is the most methods (exported or not, declared in the
// package's non-test files) a type of app, app/* or ui/* may have
// (issue 34): a type with more does several jobs; move a group into a
// component type or into app/turn or app/engine.
const maxMethods = 40

// overMethods are the types that still have more than maxMethods, each
// with the most it may have. The ceilings only go down: lower one when a
// change removes methods, and drop the entry at maxMethods.
var overMethods = map[string]int{
	"internal/app.Runtime":            155,
	"internal/ui/web.Server":          86,
	"internal/ui/tui.model":           87,
	"internal/ui/commands.Controller": 46,
}

// methodCounts returns the number of methods of each type of app, app/*
// and ui/*, keyed "DIR.TYPE".
func methodCounts(t *testing.T) map[string]int {
	counts := map[string]int{}
	for _, s := range parseModule(t) {
		dir := path.Dir(s.path)
		if strings.HasSuffix(s.path, "_test.go") || !(dir == "internal/app" || strings.HasPrefix(dir, "internal/app/") || strings.HasPrefix(dir, "internal/ui/")) {
			continue
		}
		for _, d := range s.file.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv != nil && len(fd.Recv.List) == 1 {
				if name := recvType(fd.Recv.List[0].Type); name != "" {
					counts[dir+"."+name]++
				}
			}
		}
	}
	return counts
}

// recvType returns the name of a receiver's type (T, *T, T[P], *T[P]).
func recvType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// TestMethodsPerType fails when a type of app, app/* or ui/* has more
// than maxMethods methods (or more than its ceiling in overMethods).
func TestMethodsPerType(t *testing.T) {
	counts := methodCounts(t)
	if counts["internal/app.Session"] == 0 {
		t.Fatal("no methods of internal/app.Session found: the count reads the wrong files")
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n, limit := counts[k], maxMethods
		if over, ok := overMethods[k]; ok {
			limit = over
			if n < over {
				t.Logf("%s has %d methods: lower its ceiling in overMethods to %d", k, n, max(n, maxMethods))
			}
		}
		if n > limit {
			t.Errorf("%s has %d methods, at most %d: move a group of them into a component type (or into app/turn, app/engine)", k, n, limit)
		}
	}
}
