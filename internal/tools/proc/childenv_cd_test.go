package proc

import (
	"slices"
	"strings"
	"testing"
)

// TestChildEnvironUnsetsCdVariables: commands start with OLDPWD and CDPATH
// unset, so "cd -" fails and "cd DIR" goes where the line says (issue 22,
// hole 8).
func TestChildEnvironUnsetsCdVariables(t *testing.T) {
	env := ChildEnviron([]string{"OLDPWD=/etc", "CDPATH=/etc:.", "cdpath=/x", "PWD=/w", "LANG=C"}, []string{"OLDPWD"}, EnvPolicy{})
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if strings.EqualFold(name, "OLDPWD") || strings.EqualFold(name, "CDPATH") {
			t.Errorf("child environment keeps %s", kv)
		}
	}
	if !slices.Contains(env, "PWD=/w") || !slices.Contains(env, "LANG=C") {
		t.Errorf("other variables lost: %q", env)
	}
}
