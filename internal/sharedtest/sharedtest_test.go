package sharedtest

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// fakeT records how Require ended a test; like testing.T, Fatalf and Skip
// end the calling goroutine.
type fakeT struct {
	testing.TB
	failed, skipped bool
}

func (f *fakeT) Helper()               { /* no line attribution needed */ }
func (f *fakeT) Fatalf(string, ...any) { f.failed = true; runtime.Goexit() }
func (f *fakeT) Skip(...any)           { f.skipped = true; runtime.Goexit() }

// require runs Require in its own goroutine, as the testing package runs
// a test, and returns the path and how it ended.
func require(rel string) (string, *fakeT) {
	f := &fakeT{}
	var p string
	done := make(chan struct{})
	go func() {
		defer close(done)
		p = Require(f, rel, "test cases")
	}()
	<-done
	return p, f
}

func TestRequireMissingFailsUnderCI(t *testing.T) {
	t.Setenv("CI", "true")
	if p, f := require("no/such/file.jsonl"); p != "" || !f.failed || f.skipped {
		t.Fatalf("under CI: path %q failed %v skipped %v", p, f.failed, f.skipped)
	}
}

func TestRequireMissingSkipsWithoutCI(t *testing.T) {
	t.Setenv("CI", "")
	if p, f := require("no/such/file.jsonl"); p != "" || f.failed || !f.skipped {
		t.Fatalf("without CI: path %q failed %v skipped %v", p, f.failed, f.skipped)
	}
}

func TestRequirePresent(t *testing.T) {
	if Find("security/attacks.jsonl") == "" {
		t.Skip("../shared is not beside this checkout")
	}
	if p, f := require("security/attacks.jsonl"); p == "" || f.failed || f.skipped {
		t.Fatalf("present: path %q failed %v skipped %v", p, f.failed, f.skipped)
	}
}

// npmBin runs NPMBin as require runs Require.
func npmBin(name string) (string, *fakeT) {
	f := &fakeT{}
	var p string
	done := make(chan struct{})
	go func() {
		defer close(done)
		p = NPMBin(f, name)
	}()
	<-done
	return p, f
}

func TestNPMBinMissingFailsUnderCI(t *testing.T) {
	t.Setenv("AIDEX_TEST_NPM", t.TempDir())
	t.Setenv("CI", "true")
	if p, f := npmBin("mcp-server-everything"); p != "" || !f.failed {
		t.Fatalf("under CI: path %q failed %v", p, f.failed)
	}
	t.Setenv("CI", "")
	if p, f := npmBin("mcp-server-everything"); p != "" || f.failed || !f.skipped {
		t.Fatalf("without CI: path %q failed %v skipped %v", p, f.failed, f.skipped)
	}
}

func TestNPMBinPresent(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "node_modules", ".bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(bin, "tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("AIDEX_TEST_NPM", dir)
	if p, f := npmBin("tool"); p != filepath.Join(bin, "tool") || f.failed || f.skipped {
		t.Fatalf("present: path %q failed %v skipped %v", p, f.failed, f.skipped)
	}
}

func TestCopyTree(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(src, "team"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"a.md", filepath.Join("team", "b.md")} {
		if err := os.WriteFile(filepath.Join(src, f), []byte("x "+f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got := CopyTree(t, src, filepath.Join(dst, "deep"))
	if len(got) != 2 {
		t.Fatalf("copied %v, want 2 files", got)
	}
	for _, f := range got {
		data, err := os.ReadFile(filepath.Join(dst, "deep", f))
		if err != nil || string(data) != "x "+f {
			t.Errorf("%s: %q, %v", f, data, err)
		}
	}
}
