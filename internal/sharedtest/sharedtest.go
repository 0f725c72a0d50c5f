// Package sharedtest finds the shared test material (recorded provider
// exchanges, text tool-call fixtures, attack cases) in ../shared beside the
// repository, for the tests of several packages, and holds small helpers
// those tests share (Buffer).
//
// The suites built on it never skip silently: when the folder is missing
// and the CI environment variable is set (CI runs with ../shared beside the
// clone), the test fails with a message naming the folder; without CI it
// skips with a visible t.Skip reason.
package sharedtest

import (
	"os"
	"path/filepath"
	"testing"
)

// Find returns the path of ../shared/<rel> beside the repository root (the
// directory holding go.mod, found upwards from the working directory), or
// "" when it does not exist. rel is slash-separated ("security/attacks.jsonl").
func Find(rel string) string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			p := filepath.Join(dir, "..", "shared", filepath.FromSlash(rel))
			if _, err := os.Stat(p); err == nil {
				return p
			}
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Require returns the path of ../shared/<rel> (see Find). When it is
// missing, the test fails under CI (the CI environment variable set) and is
// skipped otherwise, each with a message naming the folder and what
// depends on it (what, e.g. "attack cases").
func Require(t testing.TB, rel, what string) string {
	t.Helper()
	p := Find(rel)
	if p != "" {
		return p
	}
	msg := "../shared/" + rel + " not found beside the repository: " + what + " unavailable"
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set: clone the project with the shared folder beside it)", msg)
	}
	t.Skip(msg + " (CI unset: skipping)")
	return ""
}

// NPMDir returns the folder the npm test counterparts are installed in
// (the MCP reference server, the Inspector CLI, the ACP SDK; see .ci/run):
// $AIDEX_TEST_NPM, else $XDG_CACHE_HOME/aidex-ci/npm or ~/.cache/aidex-ci/npm.
func NPMDir() string {
	if d := os.Getenv("AIDEX_TEST_NPM"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "aidex-ci", "npm")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(home, ".cache", "aidex-ci", "npm")
}

// NPMBin returns the path of an installed npm test counterpart's
// executable (node_modules/.bin/<name> under [NPMDir], e.g.
// "mcp-server-everything", "mcp-inspector"). When it is missing the test
// fails under CI (which installs it) and is skipped otherwise, with a
// message naming the command that installs it.
func NPMBin(t testing.TB, name string) string {
	t.Helper()
	p := filepath.Join(NPMDir(), "node_modules", ".bin", name)
	if _, err := os.Stat(p); err == nil {
		return p
	}
	msg := p + " not found: run `bash .ci/run` (or npm install the pinned package into " + NPMDir() + ")"
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set: .ci/run installs it)", msg)
	}
	t.Skip(msg + " (CI unset: skipping)")
	return ""
}

// NPMModule returns the folder of an installed npm package under
// [NPMDir] (node_modules/<pkg>, e.g. "@agentclientprotocol/sdk"), failing
// under CI and skipping otherwise when it is missing, as [NPMBin].
func NPMModule(t testing.TB, pkg string) string {
	t.Helper()
	p := filepath.Join(NPMDir(), "node_modules", filepath.FromSlash(pkg))
	if _, err := os.Stat(p); err == nil {
		return p
	}
	msg := p + " not found: run `bash .ci/run` (or npm install the pinned package into " + NPMDir() + ")"
	if os.Getenv("CI") != "" {
		t.Fatalf("%s (CI is set: .ci/run installs it)", msg)
	}
	t.Skip(msg + " (CI unset: skipping)")
	return ""
}

// CopyTree copies the regular files of folder src into folder dst (made
// as needed), keeping their relative paths, and returns those paths
// (OS-separated, in walk order): how a suite puts real files of ../shared
// where aidex looks for them (a project's .claude/commands, say). It
// fails the test on any error.
func CopyTree(t testing.TB, src, dst string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(src, func(p string, e os.DirEntry, err error) error {
		if err != nil || !e.Type().IsRegular() {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		files = append(files, rel)
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dst, rel)), 0o755); err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	})
	if err != nil {
		t.Fatalf("copy %s to %s: %v", src, dst, err)
	}
	return files
}
