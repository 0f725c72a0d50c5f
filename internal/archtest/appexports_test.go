package archtest

import (
	"go/ast"
	"path"
	"sort"
	"strings"
	"testing"
)

// maxAppExports is the most exported package-level names (types,
// functions, variables, constants) internal/app may have: the facade the
// front ends use. Issue 34 aims at 60; the ceiling only goes down — lower
// it when a change removes names (unexport what no front end uses, move
// engine building to app/engine and turn strategies to app/turn).
const maxAppExports = 57

// exportedNames returns the exported package-level names of the non-test
// files of package dir.
func exportedNames(t *testing.T, dir string) []string {
	var names []string
	for _, s := range parseModule(t) {
		if path.Dir(s.path) != dir || strings.HasSuffix(s.path, "_test.go") {
			continue
		}
		names = append(names, fileExports(s.file)...)
	}
	sort.Strings(names)
	return names
}

// fileExports returns the exported package-level names f declares.
func fileExports(f *ast.File) []string {
	var names []string
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, sp := range d.Specs {
				switch sp := sp.(type) {
				case *ast.TypeSpec:
					if sp.Name.IsExported() {
						names = append(names, sp.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range sp.Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}

// TestAppExports fails when internal/app exports more names than
// maxAppExports.
func TestAppExports(t *testing.T) {
	names := exportedNames(t, "internal/app")
	if len(names) > maxAppExports {
		t.Errorf("internal/app exports %d package-level names, at most %d: unexport what the front ends do not use, or move it to app/engine or app/turn", len(names), maxAppExports)
	}
	if len(names) < maxAppExports {
		t.Logf("internal/app exports %d names: lower maxAppExports to %d", len(names), len(names))
	}
}
