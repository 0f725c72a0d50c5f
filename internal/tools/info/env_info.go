package info

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/proc"
)

// envInfoDef is env_info.
func envInfoDef() tools.Def {
	return tools.Define(tools.Spec{Name: "env_info", Kind: kind.Read, Aliases: []string{"environment_info", "system_info"},
		Description: "Show the OS, architecture, shell, workspace and installed Go/Python/Node/Git versions."},
		func(ctx context.Context, env *tools.Env, _ tools.NoArgs) tools.Result { return envInfoTool(ctx, env) })
}

// versionProbes are the tools env_info reports, with the arguments that
// print their version quickly. They run from probeDir, in the sandbox of
// the model's commands when there is one (env.Confiner).
var versionProbes = [...]struct{ name, bin, arg string }{
	{"go", "go", "version"},
	{"python", "python3", "--version"},
	{"node", "node", "--version"},
	{"npm", "npm", "--version"},
	{"git", "git", "--version"},
	{"ripgrep", "rg", "--version"},
	{"cargo", "cargo", "--version"},
}

func envInfoTool(ctx context.Context, env *tools.Env) tools.Result {
	var b strings.Builder
	fmt.Fprintf(&b, "os: %s\narch: %s\n", osName(), runtime.GOARCH)
	if sh := os.Getenv("SHELL"); sh != "" {
		fmt.Fprintf(&b, "shell: %s\n", sh)
	}
	fmt.Fprintf(&b, "cpus: %d\n", runtime.NumCPU())
	var pol tools.EnvPolicy
	if env != nil {
		pol = env.EnvPolicy
	}
	if env != nil && env.Workspace != nil {
		fmt.Fprintf(&b, "workspace: %s\n", env.Workspace.Root())
	}
	versions := make([]string, len(versionProbes))
	var wg sync.WaitGroup
	environ := proc.ChildEnviron(os.Environ(), nil, pol)
	var confine func(*exec.Cmd) error
	if env != nil && env.Confiner != nil {
		c := env.Confiner
		confine = func(cmd *exec.Cmd) error { return c.Confine(cmd, false) }
	}
	for i, p := range versionProbes {
		bin, err := exec.LookPath(p.bin)
		if err != nil {
			if p.name == "python" {
				if bin, err = exec.LookPath("python"); err != nil {
					continue
				}
			} else {
				continue
			}
		}
		wg.Go(func() {
			o := proc.Run(ctx, proc.Spec{Argv: []string{bin, p.arg}, Dir: probeDir(), Env: environ,
				Timeout: versionTimeout, MaxChars: 2000, Confine: confine})
			if o.Ran && o.ExitCode == 0 {
				line, _, _ := strings.Cut(strings.TrimSpace(o.Output), "\n")
				versions[i] = line
			}
		})
	}
	wg.Wait()
	for i, p := range versionProbes {
		v := versions[i]
		if v == "" {
			v = "not installed"
		}
		fmt.Fprintf(&b, "%s: %s\n", p.name, v)
	}
	return tools.Success(b.String(), nil)
}

// probeDir is the folder version probes run in: one no sandboxed command
// can write (the file system's root), never the workspace or the temp
// folder, since toolchain managers' shims (rustup, mise, asdf, nvm,
// pyenv, goenv) read rust-toolchain.toml, .tool-versions, .mise.toml,
// .nvmrc, .python-version, go.mod's toolchain line and the like from the
// folder they run in and its parents, and run the program they name.
func probeDir() string {
	if runtime.GOOS == "windows" {
		if d := os.Getenv("SystemRoot"); d != "" {
			return d
		}
	}
	return string(filepath.Separator)
}

// osName is GOOS plus the distribution's PRETTY_NAME on Linux.
func osName() string {
	name := runtime.GOOS
	if runtime.GOOS != "linux" {
		return name
	}
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return name
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64*1024))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
			return name + " (" + strings.Trim(v, `"'`) + ")"
		}
	}
	return name
}
