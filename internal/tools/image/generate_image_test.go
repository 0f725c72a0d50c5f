package image

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/imagegen"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

func pngBytes(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 4, 3))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

// jpegLike is a minimal JPEG signature plus payload: sniffed as image/jpeg.
var jpegLike = append([]byte{0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10, 'J', 'F', 'I', 'F', 0}, bytes.Repeat([]byte{0x42}, 64)...)

type wsFixture struct {
	root string
	env  *tools.Env
	reg  *tools.Registry
}

func newWS(t *testing.T, g *imagegen.Generator) *wsFixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	ws, err := permission.NewWorkspace(root, permission.WorkspaceOptions{})
	require.NoError(t, err)
	reg := tools.NewRegistry()
	require.NoError(t, reg.Register(Tools(g)...))
	require.NoError(t, reg.Check())
	return &wsFixture{root: root, env: tools.NewEnv(ws), reg: reg}
}

func (f *wsFixture) call(t *testing.T, args any) tools.Result {
	t.Helper()
	b, err := json.Marshal(args)
	require.NoError(t, err)
	return f.reg.Call(context.Background(), f.env, "generate_image", b)
}

func TestPollinationsGenerateAndSave(t *testing.T) {
	want := pngBytes(t)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		require.Equal(t, http.MethodGet, r.Method)
		require.Equal(t, "/prompt/a red fox/in snow", r.URL.Path) // "/" in the prompt is escaped
		require.Equal(t, "/prompt/a%20red%20fox%2Fin%20snow", r.URL.EscapedPath())
		q := r.URL.Query()
		require.Equal(t, "512", q.Get("width"))
		require.Equal(t, "256", q.Get("height"))
		require.Equal(t, "42", q.Get("seed"))
		require.Equal(t, "flux", q.Get("model"))
		require.Equal(t, "true", q.Get("nologo"))
		require.Empty(t, r.Header.Get("Authorization"))
		w.Header().Set("Content-Type", "image/png")
		_, _ = w.Write(want)
	}))
	defer srv.Close()
	g, err := imagegen.New(imagegen.Config{BaseURL: srv.URL})
	require.NoError(t, err)
	require.Equal(t, imagegen.ProviderPollinations, g.Provider())
	f := newWS(t, g)

	r := f.call(t, map[string]any{"prompt": "a red fox/in snow", "output_path": "art/fox.png", "width": 512, "height": 256, "seed": 42})
	require.True(t, r.OK, r.Error)
	require.Equal(t, "art/fox.png", r.Meta.Path)
	require.Contains(t, r.Output, "512x256 image/png")
	got, err := os.ReadFile(filepath.Join(f.root, "art", "fox.png"))
	require.NoError(t, err)
	require.Equal(t, want, got, "image bytes must be saved unchanged")
	cps := f.env.Checkpoints.(*tools.MemCheckpointer).Entries()
	require.Len(t, cps, 1)
	require.False(t, cps[0].Existed)

	// Existing file: refused without overwrite, replaced with it.
	r = f.call(t, map[string]any{"prompt": "a red fox/in snow", "output_path": "art/fox.png", "width": 512, "height": 256, "seed": 42})
	require.False(t, r.OK)
	require.Equal(t, tools.CategoryValidation, r.Category)
	require.Contains(t, r.Error, "overwrite")
	r = f.call(t, map[string]any{"prompt": "a red fox/in snow", "output_path": "art/fox.png", "width": 512, "height": 256, "seed": 42, "overwrite": true})
	require.True(t, r.OK, r.Error)
	cps = f.env.Checkpoints.(*tools.MemCheckpointer).Entries()
	require.True(t, cps[len(cps)-1].Existed)
	require.Equal(t, want, cps[len(cps)-1].Old)
	require.Equal(t, int32(3), hits.Load())
}

func TestPollinationsHTMLErrorPageRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png") // lies
		_, _ = w.Write([]byte("<!DOCTYPE html><html><body>Rate limit exceeded</body></html>"))
	}))
	defer srv.Close()
	g, err := imagegen.New(imagegen.Config{BaseURL: srv.URL})
	require.NoError(t, err)
	f := newWS(t, g)
	r := f.call(t, map[string]any{"prompt": "x", "output_path": "x.png"})
	require.False(t, r.OK)
	require.Contains(t, r.Error, "not an image")
	require.Contains(t, r.Error, "Rate limit exceeded")
	_, err = os.Stat(filepath.Join(f.root, "x.png"))
	require.True(t, os.IsNotExist(err), "nothing may be saved")
}

func TestExtensionAddedAndMismatchNoted(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(jpegLike) }))
	defer srv.Close()
	g, err := imagegen.New(imagegen.Config{BaseURL: srv.URL})
	require.NoError(t, err)
	f := newWS(t, g)
	r := f.call(t, map[string]any{"prompt": "x", "output_path": "pic"})
	require.True(t, r.OK, r.Error)
	require.Equal(t, "pic.jpg", r.Meta.Path)
	r = f.call(t, map[string]any{"prompt": "x", "output_path": "pic.png"})
	require.True(t, r.OK, r.Error)
	require.Contains(t, r.Output, "note: the image is image/jpeg but the file name ends in .png")
	got, err := os.ReadFile(filepath.Join(f.root, "pic.png"))
	require.NoError(t, err)
	require.Equal(t, jpegLike, got)
}

func TestOutputPathConfined(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); _, _ = w.Write(jpegLike) }))
	defer srv.Close()
	g, err := imagegen.New(imagegen.Config{BaseURL: srv.URL})
	require.NoError(t, err)
	f := newWS(t, g)
	for _, p := range []string{"../escape.png", "/tmp/abs.png", filepath.Join(filepath.Dir(f.root), "x.png")} {
		r := f.call(t, map[string]any{"prompt": "x", "output_path": p})
		require.False(t, r.OK, p)
		require.Equal(t, tools.CategorySecurity, r.Category, r.Error)
	}
	require.Zero(t, hits.Load(), "no generation for a refused path")
	_, err = os.Stat(filepath.Join(filepath.Dir(f.root), "escape.png"))
	require.True(t, os.IsNotExist(err))
}
