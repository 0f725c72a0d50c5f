package exec

import (
	"context"
	"encoding/json"
	"os/exec"
	"runtime"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

type runPythonArgs struct {
	Code    string `json:"code" jsonschema:"Python 3 source to run"`
	Timeout int    `json:"timeout,omitempty" jsonschema:"Seconds before it is killed (max 600)" default:"120"`
}

// runPythonDef is run_python: a Python 3 program given as code.
func (o Options) runPythonDef() tools.Def {
	return tools.Define(tools.Spec{Name: "run_python", Kind: kind.Exec, Aliases: []string{"python", "execute_python", "run_python_code"},
		Description: "Run a Python 3 script (given as code) in the workspace with python3; output capped, exit code reported.", Shell: true, Subject: func(json.RawMessage) string { return "python3" }},
		o.runPython)
}

func (o Options) runPython(ctx context.Context, env *tools.Env, a runPythonArgs) tools.Result {
	if strings.TrimSpace(a.Code) == "" {
		return tools.Failf(tools.CategoryValidation, "run_python: code is empty; give Python source")
	}
	if len(a.Code) > maxPythonCode {
		return tools.Failf(tools.CategoryValidation, "run_python: code is %d bytes, over the %d-byte limit; write it to a file and run it with run_command",
			len(a.Code), maxPythonCode)
	}
	timeout, note, bad := commandTimeout(a.Timeout)
	if bad != nil {
		return *bad
	}
	dir, res := resolveDir(env, "cwd", ".")
	if res != nil {
		return *res
	}
	py := findPython()
	if py == "" {
		return tools.Failf(tools.CategoryNotFound, "run_python: no Python interpreter found (python3, python) on PATH; "+
			"install Python 3 or do this another way")
	}
	environ := append(gitSafeEnviron(ctx, dir, o.environ(env)), "PYTHONIOENCODING=utf-8", "PYTHONDONTWRITEBYTECODE=1", "PYTHONUNBUFFERED=1")
	// "-" reads the program from stdin (so nothing is written to disk);
	// input() inside it then sees end of file, as with a closed stdin.
	end := beginAudit(env)
	saved := env.Outputs.Start()
	out := proc.Run(ctx, proc.Spec{Argv: []string{py, "-"}, Dir: dir, Env: environ, Stdin: a.Code,
		Timeout: timeout, MaxChars: o.MaxOutputChars, Confine: confine(env), Tee: saved})
	return withReverts(explainSandbox(env, withSaved(saved, out, out.Result("python", timeout, note)), out.Output), end())
}

// findPython returns the path of python3 (or python, or py on Windows),
// "" when none is installed.
func findPython() string {
	names := []string{"python3", "python"}
	if runtime.GOOS == "windows" {
		names = append(names, "py")
	}
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}
