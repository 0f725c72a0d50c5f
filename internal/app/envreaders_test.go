//go:build unix

package app

import (
	"context"
	"encoding/json"
	"os/exec"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/app/toolcall"
)

// Issue 43, part 3: whatever shows the environment of the commands aidex
// runs (printenv, env, set, export -p, jq env, awk ENVIRON, perl %ENV,
// python os.environ, node process.env, a here-document expanding $VAR,
// /proc/self/environ), a scrubbed credential never appears: every reader
// that runs sees the cleaned environment, and the readers of other
// processes' environments are refused.
func TestEnvironmentReadersSeeNoCredential(t *testing.T) {
	t.Setenv("CORPLLM", "corp-secret-value")
	t.Setenv("SOME_TOKEN", "token-secret-value")
	t.Setenv("DATABASE_URL", "postgres://u:db-secret-value@h/x")
	t.Setenv("HARMLESS", "harmless-value")
	// "declare -x" and "<<<" are bash's: run_command uses $SHELL (CI has
	// none, and its sh is dash).
	if bash, err := exec.LookPath("bash"); err == nil {
		t.Setenv("SHELL", bash)
	}
	rt := loadWithConfig(t, "[providers.corp]\ntype = \"openai\"\nbase_url = \"http://127.0.0.1:1/v1\"\napi_key_env = \"CORPLLM\"\n")
	secrets := []string{"corp-secret-value", "token-secret-value", "db-secret-value"}
	readers := []struct {
		command string
		needs   string // a program the reader needs, skipped when missing
		runs    bool   // the reader runs and prints HARMLESS (false: refused)
	}{
		{"env", "", true},
		{"printenv", "", true},
		{"export -p", "", true},
		{"declare -x", "bash", true},
		{"set", "", true},
		{"cat <<EOF\n$CORPLLM $SOME_TOKEN $DATABASE_URL $HARMLESS\nEOF", "", true},
		{"cat <<< \"$CORPLLM $HARMLESS\"", "bash", true},
		{"jq -n env", "jq", true},
		{"jq -n '$ENV'", "jq", true},
		{"awk 'BEGIN{for (k in ENVIRON) print k \"=\" ENVIRON[k]}'", "awk", true},
		{"perl -e 'print \"$_=$ENV{$_}\\n\" for keys %ENV'", "perl", true},
		{"python3 -c 'import os; print(dict(os.environ))'", "python3", true},
		{"node -e 'console.log(JSON.stringify(process.env))'", "node", true},
		{"cat /proc/self/environ", "", false},
		{"tr '\\0' '\\n' < /proc/self/environ", "", false},
		{"cat /proc/$PPID/environ", "", false},
		{"ps eww", "ps", false},
		{"sort --files0-from=- < /proc/self/environ", "", false},
	}
	ran := 0
	for _, r := range readers {
		if r.needs != "" {
			if _, err := exec.LookPath(r.needs); err != nil {
				t.Logf("%q skipped: %s is not installed", r.command, r.needs)
				continue
			}
		}
		args, _ := json.Marshal(map[string]string{"command": r.command})
		out, err := rt.CallTool(context.Background(), "run_command", args, toolcall.Options{UserAction: true})
		if err != nil {
			t.Fatalf("%q: %v", r.command, err)
		}
		got := out.Result.Output + out.Result.Error
		for _, s := range secrets {
			if strings.Contains(got, s) {
				t.Errorf("%q shows the scrubbed credential %s:\n%s", r.command, s, got)
			}
		}
		switch {
		case r.runs && (!out.Result.OK || !strings.Contains(got, "harmless-value")):
			t.Errorf("%q: want it to run and show HARMLESS (the reader works), got ok=%v outcome %v:\n%s", r.command, out.Result.OK, out.Outcome, got)
		case r.runs:
			ran++
		case out.Outcome != toolcall.Refused:
			t.Errorf("%q: outcome %v, want refused (another process's environment, or a protected path)\n%s", r.command, out.Outcome, got)
		}
	}
	if ran < 6 {
		t.Fatalf("only %d readers ran", ran)
	}
	pythonSeesNoCredential(t, rt, secrets)
}

// pythonSeesNoCredential: run_python reads os.environ directly.
func pythonSeesNoCredential(t *testing.T, rt *Runtime, secrets []string) {
	t.Helper()
	out, err := rt.CallTool(context.Background(), "run_python",
		json.RawMessage(`{"code":"import os\nprint(dict(os.environ))"}`), toolcall.Options{UserAction: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := exec.LookPath("python3"); err == nil && !strings.Contains(out.Result.Output, "harmless-value") {
		t.Errorf("run_python did not print the environment: %+v", out.Result)
	}
	for _, s := range secrets {
		if strings.Contains(out.Result.Output+out.Result.Error, s) {
			t.Errorf("run_python shows the scrubbed credential %s", s)
		}
	}
}
