package sandbox

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// explainSandbox builds a sandbox over a temp workspace (a git repo),
// home and extra writable folder without starting anything.
func explainSandbox(t testing.TB, mode Mode, network bool) (sb *Sandbox, ws, home string) {
	root := t.TempDir()
	ws, home = filepath.Join(root, "ws"), filepath.Join(root, "home")
	for _, d := range []string{filepath.Join(ws, ".git"), filepath.Join(home, ".ssh")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, ".git", "config"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	sb, err := New(Policy{Mode: mode, Workspace: ws, Home: home, Network: network,
		Writable: []string{filepath.Join(root, "tmp")}}, Caps{Helper: "/x/aidex-sandbox", Namespaces: true, LandlockABI: 7})
	if err != nil {
		t.Fatal(err)
	}
	return sb, ws, home
}

func TestExplainTable(t *testing.T) {
	sb, ws, home := explainSandbox(t, WorkspaceWrite, false)
	cases := []struct {
		name, output, want string // want "" = no sandbox line
	}{
		{"touch outside", "touch: cannot touch '" + home + "/x': Read-only file system", "--add-dir " + home},
		{"dash create", "sh: 1: cannot create /etc/aidex-test: Read-only file system", "--add-dir /etc"},
		{"bash append", "bash: " + home + "/.bashrc: Read-only file system", "--add-dir " + home},
		{"go open", "open /usr/lib/x.so: read-only file system", "--add-dir /usr/lib"},
		{"landlock eacces", "mkdir: cannot create directory ‘/opt/new’: Permission denied", "--add-dir /opt"},
		{"python", "PermissionError: [Errno 13] Permission denied: '/var/lib/x'", "--add-dir /var/lib"},
		{"git hook relative", "sh: 1: cannot create .git/hooks/pre-commit: Read-only file system", "read-only in the sandbox"},
		{"git config absolute", "error: could not lock config file " + ws + "/.git/config: Read-only file system", "read-only in the sandbox"},
		{"aidex config", "cannot create '.aidex/config.toml': Read-only file system", "read-only in the sandbox"},
		{"masked key", "cat: " + home + "/.ssh/id_rsa: Permission denied", "hidden from sandboxed commands"},
		{"inside workspace is the file's own", "touch: cannot touch '" + ws + "/ro.txt': Permission denied", ""},
		{"relative inside workspace", "sh: 1: cannot create out.txt: Permission denied", ""},
		{"curl", "curl: (7) Failed to connect to example.com port 443: Network is unreachable", "network = true"},
		{"dns", "curl: (6) Could not resolve host: example.com", "network = true"},
		{"go dial", "dial tcp 127.0.0.1:8080: connect: connection refused", "network = true"},
		{"landlock tcp", "dial tcp 10.0.0.1:443: connect: permission denied", "network = true"},
		{"curl landlock", "curl: (7) Failed to connect to x port 80 after 0 ms: Couldn't connect to server", "network = true"},
		{"npm", "npm ERR! getaddrinfo ENOTFOUND registry.npmjs.org", "network = true"},
		{"helper", "aidex-sandbox: setup: bind writable /x: invalid argument", "could not start"},
		{"ordinary failure", "FAIL: TestAdd (0.00s)\nexit status 1", ""},
		{"empty", "", ""},
	}
	for _, tc := range cases {
		got := sb.Explain(tc.output)
		if tc.want == "" {
			if got != "" {
				t.Errorf("%s: Explain(%q) = %q, want no sandbox line", tc.name, tc.output, got)
			}
			continue
		}
		if !strings.Contains(got, tc.want) || strings.Contains(got, "\n") || !strings.HasPrefix(got, "sandbox: ") {
			t.Errorf("%s: Explain(%q) = %q, want one line containing %q", tc.name, tc.output, got, tc.want)
		}
	}
}

func TestExplainModes(t *testing.T) {
	ro, _, _ := explainSandbox(t, ReadOnly, false)
	if got := ro.Explain("sh: 1: cannot create new.txt: Read-only file system"); !strings.Contains(got, "workspace-write") {
		t.Errorf("read-only mode: %q, want the --sandbox workspace-write fix", got)
	}
	on, _, _ := explainSandbox(t, WorkspaceWrite, true)
	if got := on.Explain("curl: (7) Failed to connect: Network is unreachable"); got != "" {
		t.Errorf("network on: %q, want no sandbox line", got)
	}
	off, err := New(Policy{Mode: Off}, Caps{Reason: "none"})
	if err != nil {
		t.Fatal(err)
	}
	if got := off.Explain("touch: cannot touch '/x': Read-only file system"); got != "" {
		t.Errorf("mode off: %q", got)
	}
}

func FuzzExplain(f *testing.F) {
	for _, s := range []string{"touch: cannot touch '/x': Read-only file system", "a: b: Permission denied: 'c'",
		"Network is unreachable", "aidex-sandbox: setup: x", "'':: permission denied"} {
		f.Add(s)
	}
	sb, _, _ := explainSandbox(f, WorkspaceWrite, false)
	f.Fuzz(func(t *testing.T, out string) {
		got := sb.Explain(out)
		if strings.Contains(got, "\n") || got != "" && !strings.HasPrefix(got, "sandbox: ") {
			t.Fatalf("Explain(%q) = %q: want one line starting with sandbox:", out, got)
		}
	})
}
