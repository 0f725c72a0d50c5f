package web

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// pngBytes is a PNG signature followed by every byte value: content
// sniffing says image/png, and any re-encoding would show.
func pngBytes() []byte {
	b := []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	for i := range 256 {
		b = append(b, byte(i))
	}
	return b
}

// pollinations is a stand-in for the Pollinations image endpoint: GET
// /prompt/{prompt} answers the image bytes. It counts requests and
// records the last URL.
type pollinations struct {
	*httptest.Server
	calls atomic.Int32
	last  atomic.Value
	body  []byte
	fail  int
}

func newPollinations(t *testing.T) *pollinations {
	p := &pollinations{body: pngBytes()}
	p.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.calls.Add(1)
		p.last.Store(r.URL.String())
		if !strings.HasPrefix(r.URL.Path, "/prompt/") {
			http.NotFound(w, r)
			return
		}
		if p.fail != 0 {
			http.Error(w, "the model is overloaded", p.fail)
			return
		}
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(p.body)
	}))
	t.Cleanup(p.Close)
	return p
}

type imageAnswer struct {
	MIME     string `json:"mime"`
	Data     string `json:"data"`
	Bytes    int    `json:"bytes"`
	Width    int    `json:"width"`
	Height   int    `json:"height"`
	Provider string `json:"provider"`
	Saved    string `json:"saved"`
	Error    string `json:"error"`
}

// TestImageEndpoint: POST /api/image against a stand-in for Pollinations:
// generation, save_as, refused paths and bad requests (neither reaching
// the service), and the service failing.
func TestImageEndpoint(t *testing.T) {
	p := newPollinations(t)
	e := newEnv(t, nil, "image_provider = \"pollinations\"\nimage_base_url = \""+p.URL+"\"\n")
	checkImageGenerate(t, e, p)
	checkImageSaveAs(t, e)
	checkImageRefusedPaths(t, e, p)
	checkImageBadRequests(t, e, p)

	// The service fails: 502 with its message.
	p.fail = http.StatusServiceUnavailable
	var out imageAnswer
	if st := e.call(http.MethodPost, "/api/image", map[string]any{"prompt": "fox"}, &out); st != http.StatusBadGateway || !strings.Contains(out.Error, "overloaded") {
		t.Errorf("service failure: %d %+v", st, out)
	}
}

// checkImageGenerate: the answer carries the service's bytes unchanged
// and the request's parameters reach the service.
func checkImageGenerate(t *testing.T, e *env, p *pollinations) {
	var out imageAnswer
	if st := e.call(http.MethodPost, "/api/image", map[string]any{"prompt": "a red fox", "width": 256, "height": 128, "seed": 7}, &out); st != http.StatusOK {
		t.Fatalf("generate: %d %s", st, out.Error)
	}
	data, err := base64.StdEncoding.DecodeString(out.Data)
	if err != nil || !bytes.Equal(data, pngBytes()) {
		t.Fatalf("the image bytes changed on the way: %v (%d bytes)", err, len(data))
	}
	if out.MIME != "image/png" || out.Bytes != len(data) || out.Width != 256 || out.Height != 128 || out.Provider != "pollinations" || out.Saved != "" {
		t.Errorf("answer %+v", out)
	}
	if u, _ := p.last.Load().(string); !strings.Contains(u, "/prompt/a%20red%20fox") || !strings.Contains(u, "width=256") || !strings.Contains(u, "seed=7") {
		t.Errorf("the image service got %s", u)
	}
}

// checkImageSaveAs: save_as writes the bytes unchanged into the
// workspace, adds the type's extension, and refuses an existing file
// (409) unless overwrite.
func checkImageSaveAs(t *testing.T, e *env) {
	var out imageAnswer
	if st := e.call(http.MethodPost, "/api/image", map[string]any{"prompt": "a red fox", "save_as": "img/fox.png"}, &out); st != http.StatusOK || out.Saved != "img/fox.png" {
		t.Fatalf("save: %d %+v", st, out)
	}
	if got, _ := os.ReadFile(filepath.Join(e.ws, "img", "fox.png")); !bytes.Equal(got, pngBytes()) {
		t.Error("the saved file differs from the image")
	}
	// Without an extension the type's is added.
	if st := e.call(http.MethodPost, "/api/image", map[string]any{"prompt": "fox", "save_as": "img/noext"}, &out); st != http.StatusOK || out.Saved != "img/noext.png" {
		t.Errorf("save without extension: %d %+v", st, out)
	}
	// An existing file: 409, unless overwrite.
	if st := e.call(http.MethodPost, "/api/image", map[string]any{"prompt": "fox", "save_as": "img/fox.png"}, &out); st != http.StatusConflict || out.Error == "" {
		t.Errorf("existing file: %d %+v", st, out)
	}
	if st := e.call(http.MethodPost, "/api/image", map[string]any{"prompt": "fox", "save_as": "img/fox.png", "overwrite": true}, nil); st != http.StatusOK {
		t.Errorf("overwrite: %d", st)
	}
}

// checkImageRefusedPaths: save_as paths out of the workspace are 403
// before the service is asked, and nothing is written outside.
func checkImageRefusedPaths(t *testing.T, e *env, p *pollinations) {
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(e.ws, "link")); err != nil {
		t.Fatal(err)
	}
	before := p.calls.Load()
	for _, bad := range []string{"../fox.png", filepath.Join(outside, "fox.png"), "link/fox.png", "img/../../fox.png"} {
		var out imageAnswer
		if st := e.call(http.MethodPost, "/api/image", map[string]any{"prompt": "fox", "save_as": bad}, &out); st != http.StatusForbidden || out.Error == "" {
			t.Errorf("save_as %s: %d %+v, want 403", bad, st, out)
		}
	}
	if p.calls.Load() != before {
		t.Error("a refused save_as still asked the image service")
	}
	if entries, _ := os.ReadDir(outside); len(entries) != 0 {
		t.Errorf("files written outside the workspace: %v", entries)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(e.ws), "fox.png")); err == nil {
		t.Error("fox.png written next to the workspace")
	}
}

// checkImageBadRequests: bad requests are 400 (a form body 415) without a
// request to the service.
func checkImageBadRequests(t *testing.T, e *env, p *pollinations) {
	before := p.calls.Load()
	for _, bad := range []any{
		map[string]any{},
		map[string]any{"prompt": "   "},
		map[string]any{"prompt": strings.Repeat("x", 5000)},
		map[string]any{"prompt": "fox", "width": 10},
		map[string]any{"prompt": "fox", "height": 99999},
	} {
		if st := e.call(http.MethodPost, "/api/image", bad, nil); st != http.StatusBadRequest {
			t.Errorf("%v: %d, want 400", bad, st)
		}
	}
	if p.calls.Load() != before {
		t.Error("a bad request reached the image service")
	}
	form := e.req(http.MethodPost, "/api/image", "prompt=fox")
	form.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if st, _, _ := e.do(form); st != http.StatusUnsupportedMediaType {
		t.Errorf("form body: %d", st)
	}
}

// TestImageEndpointNotAnImage: an HTML page from the service is refused
// (502), and nothing is saved.
func TestImageEndpointNotAnImage(t *testing.T) {
	p := newPollinations(t)
	p.body = []byte("<!doctype html><html><body>rate limited</body></html>")
	e := newEnv(t, nil, "image_base_url = \""+p.URL+"\"\n")
	if st := e.call(http.MethodPost, "/api/image", map[string]any{"prompt": "fox", "save_as": "fox.png"}, nil); st != http.StatusBadGateway {
		t.Errorf("HTML answer: %d", st)
	}
	if _, err := os.Stat(filepath.Join(e.ws, "fox.png")); err == nil {
		t.Error("an HTML page was saved as fox.png")
	}
}

// TestImageEndpointBadConfig: an unknown image_provider is explained.
func TestImageEndpointBadConfig(t *testing.T) {
	e := newEnv(t, nil, "image_provider = \"dalle-magic\"\n")
	var out map[string]string
	if st := e.call(http.MethodPost, "/api/image", map[string]any{"prompt": "fox"}, &out); st != http.StatusInternalServerError || !strings.Contains(out["error"], "image_provider") {
		t.Errorf("bad config: %d %v", st, out)
	}
}
