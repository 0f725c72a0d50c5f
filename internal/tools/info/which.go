package info

import (
	"context"
	"os/exec"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

// whichDef is which.
func whichDef() tools.Def {
	return tools.Define(tools.Spec{Name: "which", Kind: kind.Read, Aliases: []string{"command_exists", "find_executable"},
		Description: "Find a program on PATH (is a command installed?)."},
		func(ctx context.Context, env *tools.Env, a whichArgs) tools.Result { return whichTool(a.Name) })
}

type whichArgs struct {
	Name string `json:"name" jsonschema:"Program name, e.g. go or npm"`
}

func whichTool(name string) tools.Result {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return tools.Failf(tools.CategoryValidation, "which: name is empty; give a program name such as go")
	case len(name) > 255 || strings.ContainsAny(name, "/\\\x00") || strings.ContainsFunc(name, isControl):
		return tools.Failf(tools.CategoryValidation, "which: %q is not a program name; give a bare name (no path separators)",
			tools.TruncateName(name))
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return tools.Failf(tools.CategoryNotFound, "%s is not installed (not found on PATH)", name)
	}
	return tools.Success(p, &tools.Meta{Path: p})
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
