package sandbox

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/sandbox/helper"
)

// deniedRe finds "PATH: Read-only file system" / "Permission denied" /
// "Operation not permitted" in the usual shapes of shells and tools:
// "touch: cannot touch '/root/x': Read-only file system",
// "sh: 1: cannot create .git/hooks/x: Permission denied",
// "open /root/x: read-only file system" (Go). Group 1 is a quoted path,
// group 2 a bare one.
var deniedRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?im)(?:['"‘]([^'"’\n]+)['"’]|(?:^|[\s(])([^\s:'"‘’()]+)):\s*(?:read-only file system|permission denied|operation not permitted)`)
})

// deniedAfterRe finds the Python shape: "PermissionError: [Errno 13]
// Permission denied: '/root/x'".
var deniedAfterRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(read-only file system|permission denied|operation not permitted):\s*['"]([^'"\n]+)['"]`)
})

// netRe finds the messages of a connection the network namespace cut off.
var netRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)network is unreachable|could not resolve host|temporary failure in name resolution|` +
		`name or service not known|no address associated with hostname|getaddrinfo (?:enotfound|eai_again)|` +
		`dial tcp[^\n]*: connect: connection refused|failed to connect to [^\n]*connection refused|` +
		`connection refused|no such host|could not connect to server|couldn't connect to server|` +
		`failed to establish a new connection|connect: permission denied`)
})

// explain is Explain.
func (s *Sandbox) explain(output string) string {
	if s.policy.Mode == Off || output == "" {
		return ""
	}
	if i := strings.Index(output, helper.Prefix+"setup: "); i >= 0 {
		line, _, _ := strings.Cut(output[i+len(helper.Prefix):], "\n")
		return "sandbox: the sandbox could not start (" + line + "); run `aidex sandbox check`, or approve running the command without the sandbox"
	}
	for _, m := range deniedRe().FindAllStringSubmatch(output, 8) {
		p := m[1]
		if p == "" {
			p = m[2]
		}
		if line := s.explainPath(p); line != "" {
			return line
		}
	}
	for _, m := range deniedAfterRe().FindAllStringSubmatch(output, 8) {
		if line := s.explainPath(m[2]); line != "" {
			return line
		}
	}
	if netRe().MatchString(output) && s.networkOff() {
		return "sandbox: the network is off for commands; set network = true in [sandbox], or approve running this command with the network on"
	}
	return ""
}

func (s *Sandbox) networkOff() bool { return !s.policy.Network }

// explainPath names why the sandbox denied p and how to allow it; "" when
// p is writable (the denial is the file's own permissions).
func (s *Sandbox) explainPath(p string) string {
	if !filepath.IsAbs(p) {
		if s.policy.Workspace == "" {
			return ""
		}
		p = filepath.Join(s.policy.Workspace, p)
	}
	p = filepath.Clean(p)
	for _, h := range append(append([]string{}, s.fixed.maskDirs...), s.fixed.maskFiles...) {
		if within(p, h) {
			return "sandbox: " + p + " is hidden from sandboxed commands (credentials); approve running the command without the sandbox if it needs them"
		}
	}
	if g, ok := s.fixed.guardFor(p); ok {
		return "sandbox: " + p + " is kept read-only in the sandbox (" + g.why + "; it would run later outside the sandbox); " +
			"approve running the command without the sandbox to change it"
	}
	for _, r := range s.fixed.protected {
		if within(p, r) {
			return "sandbox: " + p + " is kept read-only in the sandbox (git hooks and config, project config); approve running the command without the sandbox to change it"
		}
	}
	if s.policy.Mode == ReadOnly {
		return "sandbox: the sandbox is read-only, so " + p + " cannot be written; use --sandbox workspace-write, or approve running the command without the sandbox"
	}
	for _, w := range s.fixed.writable {
		if within(p, w) {
			return ""
		}
	}
	dir := p
	if st, err := os.Stat(p); err != nil || !st.IsDir() {
		dir = filepath.Dir(p)
	}
	return "sandbox: " + p + " is outside the folders commands may write; allow it with --add-dir " + dir +
		" (or writable = [\"" + dir + "\"] in [sandbox]), or approve running the command without the sandbox"
}
