package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// runCommandArgs is the --args of run_command for a command line.
func runCommandArgs(t *testing.T, command string) string {
	t.Helper()
	b, err := json.Marshal(map[string]string{"command": command})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestRunCommandWalkHolesDenied runs hostile lines of issue 22 (holes 1,
// 6, 7 and 8) through "aidex tool run_command" in plan mode: each is
// denied (exit 3) and the file it would create does not exist.
func TestRunCommandWalkHolesDenied(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	marker := filepath.Join(t.TempDir(), "marker")
	e.write("f", "x[$(touch "+marker+")]\n")
	for _, line := range []string{
		"a[$(touch M)]=1", "declare a[$(touch M)]=1", "(( x['$(touch M)'] ))", "[[ 'x[$(touch M)]' -eq 1 ]]",
		"let 'x[$(touch M)]=1'", "[[ -v 'x[$(touch M)]' ]]", "test -v 'x[$(touch M)]'", "v='x[$(touch M)]'; (( v ))",
		"v=$(cat f); [[ $v -gt 0 ]]", "v=$(cat f); a=(1); x=${a[v]}", "x='$(touch M)'; : ${x@P}",
		"bash <<'EOF'\ntouch M\nEOF", "bash <<EOF\ntouch M\nEOF", "sh <<< 'touch M'", "bash <(echo touch M)",
		"trap 'touch M' EXIT", "echo p | xargs -I{} sh -c 'touch M{}'", "tar --to-comm='touch M' -xf a.tar",
		"git rebase -x 'touch M' HEAD", "GIT_DIR=x git log", "GIT_COMMON_DIR=x git status",
		"PAGER='touch M' git log", "FOO=1 ls", "export FOO=1; ls", "cd -", "cd \"$HOME\"", "popd",
		"CDPATH=/ cd tmp",
	} {
		line = strings.ReplaceAll(line, "M", marker)
		t.Run(line, func(t *testing.T) {
			r := e.run(context.Background(), "tool", "run_command", "--args", runCommandArgs(t, line), "--permission-mode", "plan")
			if r.code != ExitDenied {
				t.Errorf("exit %d, want %d (denied)\nstdout %s\nstderr %s", r.code, ExitDenied, r.stdout, r.stderr)
			}
			if _, err := os.Stat(marker); err == nil {
				os.Remove(marker)
				t.Errorf("%s ran: the marker file exists", line)
			}
		})
	}
}

// TestRunCommandEverydayAfterWalk: everyday read-only lines still run in
// plan mode.
func TestRunCommandEverydayAfterWalk(t *testing.T) {
	e := newE2E(t, llmtest.NewScript(t), "openai", "")
	e.write("README.md", "# hello\n")
	for _, line := range []string{
		"git status", "ls -la", "cat README.md", "head -n 1 README.md", "wc -l README.md", "echo $((1+2))",
		"a[0]=1; echo ok", "LANG=C ls", "[ -f README.md ] && cat README.md", "find . -name '*.md' -print",
	} {
		r := e.run(context.Background(), "tool", "run_command", "--args", runCommandArgs(t, line), "--permission-mode", "plan")
		if r.code != ExitOK {
			t.Errorf("%q: exit %d, want 0\nstdout %s\nstderr %s", line, r.code, r.stdout, r.stderr)
		}
	}
}
