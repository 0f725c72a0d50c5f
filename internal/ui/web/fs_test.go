package web

import (
	"bytes"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestFSReadRawBytes(t *testing.T) {
	e := newEnv(t, nil, "")
	content := "line one\r\nline two\n\ttabbed  \nno newline at end"
	e.write("src/a.txt", content)
	status, body, hdr := e.do(e.req(http.MethodGet, "/api/fs/read?path=src/a.txt", nil))
	if status != http.StatusOK || string(body) != content {
		t.Fatalf("read: %d %q, want the raw bytes", status, body)
	}
	if !strings.HasPrefix(hdr.Get("Content-Type"), "text/plain") || hdr.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("headers %v", hdr)
	}
	if strings.Contains(string(body), "1\t") || strings.Contains(string(body), "   1") {
		t.Error("the numbered display format leaked into a raw read")
	}
	if status, _, _ := e.do(e.req(http.MethodGet, "/api/fs/read?path=src", nil)); status != http.StatusBadRequest {
		t.Errorf("read a directory: %d, want 400", status)
	}
	if status, _, _ := e.do(e.req(http.MethodGet, "/api/fs/read?path=missing.txt", nil)); status != http.StatusNotFound {
		t.Errorf("read a missing file: %d, want 404", status)
	}
}

func TestFSWriteRoundTrip(t *testing.T) {
	e := newEnv(t, nil, "")
	cases := map[string]string{
		"crlf.txt":             "a\r\nb\r\n",
		"mixed.txt":            "a\nb\r\nc\rd",
		"unicode.txt":          "héllo wörld ✓ 日本\n",
		"empty.txt":            "",
		"zero.txt":             "a\x00b",
		"deep/new/dir/file.go": "package x\n",
	}
	for name, content := range cases {
		status := e.call(http.MethodPost, "/api/fs/write", map[string]any{"path": name, "content": content}, nil)
		if status != http.StatusOK {
			t.Fatalf("write %s: %d", name, status)
		}
		if got := e.read(name); got != content {
			t.Errorf("%s on disk = %q, want %q", name, got, content)
		}
		_, body, _ := e.do(e.req(http.MethodGet, "/api/fs/read?path="+url.QueryEscape(name), nil))
		if string(body) != content {
			t.Errorf("%s read back = %q", name, body)
		}
	}
	// Bytes that are not UTF-8 go as base64 and come back unchanged.
	raw := []byte{0xff, 0xfe, 0x00, 'a', 0x80, '\n'}
	if status := e.call(http.MethodPost, "/api/fs/write", map[string]any{"path": "bin.dat", "content_base64": base64.StdEncoding.EncodeToString(raw)}, nil); status != http.StatusOK {
		t.Fatalf("base64 write: %d", status)
	}
	_, body, _ := e.do(e.req(http.MethodGet, "/api/fs/read?path=bin.dat", nil))
	if !bytes.Equal(body, raw) {
		t.Errorf("binary round trip: %v, want %v", body, raw)
	}
	// The file's mode is kept.
	p := e.write("script.sh", "#!/bin/sh\n")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	e.call(http.MethodPost, "/api/fs/write", map[string]any{"path": "script.sh", "content": "#!/bin/sh\necho hi\n"}, nil)
	if st, _ := os.Stat(p); runtime.GOOS != "windows" && st.Mode().Perm() != 0o755 {
		t.Errorf("mode %v, want 0755", st.Mode().Perm())
	}
	for _, bad := range []map[string]any{{"path": "x.txt"}, {"content": "x"}, {"path": "x", "content": "a", "content_base64": "YQ=="}, {"path": "x", "content_base64": "%%"}} {
		if status := e.call(http.MethodPost, "/api/fs/write", bad, nil); status != http.StatusBadRequest {
			t.Errorf("write %v: %d, want 400", bad, status)
		}
	}
}

// TestFSConfinement: "../", absolute paths and symlinks out of the
// workspace are refused with 403 by every fs endpoint.
func TestFSConfinement(t *testing.T) {
	e := newEnv(t, nil, "")
	outside := filepath.Join(filepath.Dir(e.ws), "outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(outside, "secret.txt")
	if err := os.WriteFile(secret, []byte("TOP-SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(e.ws, "link-out")); err != nil {
		t.Skip("symlinks not supported:", err)
	}
	if err := os.Symlink(secret, filepath.Join(e.ws, "secret-link.txt")); err != nil {
		t.Fatal(err)
	}
	bad := []string{"../outside/secret.txt", secret, "link-out/secret.txt", "secret-link.txt", "link-out", "/etc/passwd",
		"sub/../../outside/secret.txt", filepath.Join(e.home, ".ssh", "id_rsa")}
	for _, p := range bad {
		status, body, _ := e.do(e.req(http.MethodGet, "/api/fs/read?path="+url.QueryEscape(p), nil))
		if status != http.StatusForbidden || strings.Contains(string(body), "TOP-SECRET") {
			t.Errorf("read %q: %d %s, want 403", p, status, body)
		}
		if status, _, _ := e.do(e.req(http.MethodGet, "/api/fs/list?path="+url.QueryEscape(p), nil)); status != http.StatusForbidden {
			t.Errorf("list %q: %d, want 403", p, status)
		}
		if status := e.call(http.MethodPost, "/api/fs/write", map[string]any{"path": p, "content": "pwned"}, nil); status != http.StatusForbidden {
			t.Errorf("write %q: %d, want 403", p, status)
		}
	}
	if data, _ := os.ReadFile(secret); string(data) != "TOP-SECRET" {
		t.Fatalf("the file outside was changed: %q", data)
	}
	if _, err := os.Stat(filepath.Join(outside, "pwned")); err == nil {
		t.Fatal("a file was created outside")
	}
	// An absolute path inside the workspace is fine.
	e.write("in.txt", "inside")
	if status, body, _ := e.do(e.req(http.MethodGet, "/api/fs/read?path="+url.QueryEscape(filepath.Join(e.ws, "in.txt")), nil)); status != http.StatusOK || string(body) != "inside" {
		t.Errorf("absolute path inside: %d %s", status, body)
	}
	// Invalid paths (NUL byte) are 400.
	if status, _, _ := e.do(e.req(http.MethodGet, "/api/fs/read?path=a%00b", nil)); status != http.StatusBadRequest {
		t.Errorf("NUL path: %d, want 400", status)
	}
}

func TestFSList(t *testing.T) {
	e := newEnv(t, nil, "")
	e.write("b.txt", "12345")
	e.write("A.md", "x")
	e.write("dir/c.txt", "x")
	e.write(".git/HEAD", "ref")
	var out struct {
		Path    string      `json:"path"`
		Entries []FileEntry `json:"entries"`
	}
	if status := e.call(http.MethodGet, "/api/fs/list", nil, &out); status != http.StatusOK {
		t.Fatalf("list: %d", status)
	}
	var got []string
	for _, en := range out.Entries {
		got = append(got, en.Path)
	}
	if strings.Join(got, ",") != "dir,A.md,b.txt" {
		t.Errorf("entries %v: want dirs first, by name, no .git", got)
	}
	if out.Entries[2].Size != 5 || !out.Entries[0].Dir {
		t.Errorf("entries %+v", out.Entries)
	}
	e.call(http.MethodGet, "/api/fs/list?path=dir", nil, &out)
	if len(out.Entries) != 1 || out.Entries[0].Path != "dir/c.txt" {
		t.Errorf("sub-listing %+v", out.Entries)
	}
}

func FuzzFSPath(f *testing.F) {
	for _, s := range []string{"a.txt", "../x", "/etc/passwd", "a/../../b", "link/x", "./a", "a\x00b", "~/.ssh/id_rsa", "C:\\x", "..", "sub/./../a.txt"} {
		f.Add(s)
	}
	e := newEnv(f, nil, "")
	outside := filepath.Join(filepath.Dir(e.ws), "outside")
	_ = os.MkdirAll(outside, 0o755)
	_ = os.WriteFile(filepath.Join(outside, "x"), []byte("OUT"), 0o644)
	_ = os.Symlink(outside, filepath.Join(e.ws, "link"))
	e.write("a.txt", "IN")
	f.Fuzz(func(t *testing.T, p string) {
		req, err := http.NewRequest(http.MethodGet, e.ts.URL+"/api/fs/read?path="+url.QueryEscape(p), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+testToken)
		resp, err := e.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		status := resp.StatusCode
		if strings.Contains(string(body), "OUT") {
			t.Fatalf("read %q escaped the workspace: %d", p, status)
		}
	})
}
