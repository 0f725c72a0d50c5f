package web

import (
	"encoding/base64"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/loader/loadertest"
)

func TestUploadAPI(t *testing.T) {
	e := newEnv(t, nil, "")
	b64 := func(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
	var res UploadResult
	if st := e.call(http.MethodPost, "/api/upload", UploadRequest{Name: "../../x/book.xlsx", Data: b64(loadertest.XLSX(t))}, &res); st != http.StatusOK {
		t.Fatalf("upload: status %d", st)
	}
	if res.Name != "book.xlsx" || res.Kind != "xlsx" || res.ID == "" {
		t.Errorf("upload result %+v: want the base name, kind xlsx and an id", res)
	}
	cases := []struct {
		name   string
		body   UploadRequest
		status int
		want   string
	}{
		{"binary", UploadRequest{Name: "a.out", Data: b64([]byte{0x7f, 'E', 'L', 'F', 0, 0})}, http.StatusUnprocessableEntity, "binary file (application/octet-stream, 6 B)"},
		{"too large", UploadRequest{Name: "big.txt", Data: b64(make([]byte, maxUploadBytes+1))}, http.StatusRequestEntityTooLarge, "the limit is 7 MiB"},
		{"not base64", UploadRequest{Name: "x.txt", Data: "%%%"}, http.StatusBadRequest, "not base64"},
		{"empty", UploadRequest{Name: "x.txt"}, http.StatusBadRequest, "empty"},
		{"malformed pdf", UploadRequest{Name: "x.pdf", Data: b64([]byte("%PDF-1.7 broken"))}, http.StatusUnprocessableEntity, "malformed PDF"},
	}
	for _, c := range cases {
		var apiErr apiError
		if st := e.call(http.MethodPost, "/api/upload", c.body, &apiErr); st != c.status || !strings.Contains(apiErr.Error, c.want) {
			t.Errorf("%s: status %d %q, want %d naming %q", c.name, st, apiErr.Error, c.status, c.want)
		}
	}
	req := e.req(http.MethodPost, "/api/upload", UploadRequest{Name: "a.txt", Data: b64([]byte("a"))})
	req.Header.Del("Authorization")
	if st, _, _ := e.do(req); st != http.StatusUnauthorized {
		t.Errorf("upload without the token: status %d, want 401", st)
	}
	// The first message moves the upload from attachments/new into the
	// session's folder.
	status, _, _ := e.do(e.req(http.MethodPost, "/api/chat", ChatRequest{Message: "sum", Attachments: []Attachment{{Name: "book.xlsx", Upload: res.ID}}}))
	if status != http.StatusOK {
		t.Fatalf("chat with the upload: status %d", status)
	}
	moved, _ := filepath.Glob(filepath.Join(e.home, ".local", "state", "aidex", "attachments", "*", res.ID, "book.xlsx"))
	if len(moved) != 1 || strings.Contains(moved[0], string(filepath.Separator)+"new"+string(filepath.Separator)) {
		t.Errorf("upload after the first message at %v, want it in the session's folder", moved)
	}
	var apiErr apiError
	if st := e.call(http.MethodPost, "/api/chat", ChatRequest{Message: "hi", Attachments: []Attachment{{Name: "x", Upload: "nope"}}}, &apiErr); st != http.StatusBadRequest || !strings.Contains(apiErr.Error, "no upload \"nope\"") {
		t.Errorf("chat with an unknown upload: %d %q", st, apiErr.Error)
	}
}
