package wire

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/catalog"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm"
)

// fakeRow is a wire format that exists only in this test: a local server
// listing its models at /list with an X-Fake-Key header, one id a line.
func fakeRow() Format {
	return Format{
		Type: "fake-wire", Local: true, PDF: never,
		New: func(s Settings) llm.Client { return nil },
		Models: catalog.ModelsAPI{
			URL:    func(base string) string { return base + "/list" },
			Header: func(key string) map[string]string { return map[string]string{"X-Fake-Key": key} },
			Parse: func(body []byte) ([]catalog.Model, string, error) {
				var ms []catalog.Model
				for _, id := range strings.Fields(string(body)) {
					ms = append(ms, catalog.Model{ID: id})
				}
				return ms, "", nil
			},
		},
	}
}

// TestAFormatIsOneRow proves the property of the table: a format that is
// one more row, and nothing else, is taken by the catalog (as a type of a
// provider, and for its model list), by config (the file, `aidex config
// set`, the key reference) and by the model listing, while without the
// row each refuses it.
func TestAFormatIsOneRow(t *testing.T) {
	withRow := append(Formats(), fakeRow())
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/list" || r.Header.Get("X-Fake-Key") != "k1" {
			http.Error(w, "wrong request "+r.URL.Path, http.StatusNotFound)
			return
		}
		_, _ = w.Write([]byte("alpha beta\n"))
	}))
	defer srv.Close()
	t.Run("catalog and listing", func(t *testing.T) { checkCatalogTakesRow(t, withRow, srv.URL) })
	t.Run("config file", func(t *testing.T) { checkConfigTakesRow(t, withRow) })
	t.Run("config set and reference", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "config.toml")
		if err := config.Set(path, "providers.box.type", "fake-wire", ConfigFormats()...); err == nil {
			t.Error("config set took a type the table lacks")
		}
		if err := config.Set(path, "providers.box.type", "fake-wire", configFormats(withRow)...); err != nil {
			t.Errorf("config set: %v", err)
		}
		ref, err := config.KeyReference(filepath.Join("..", "..", "config"), configFormats(withRow))
		if err != nil || !strings.Contains(ref, "`ollama`, `fake-wire` |") {
			t.Errorf("the key reference does not list the row (%v)", err)
		}
	})
}

func checkCatalogTakesRow(t *testing.T, withRow []Format, base string) {
	over := map[string]catalog.Override{"box": {Type: "fake-wire", BaseURL: base, APIKey: "k1"}}
	cat, err := catalog.Load(CatalogFormats())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cat.WithOverrides(over); err == nil || !strings.Contains(err.Error(), `unknown type "fake-wire": use one of openai, openai-responses, anthropic, gemini, ollama`) {
		t.Fatalf("without the row: %v", err)
	}
	if cat, err = catalog.Load(catalogFormats(withRow)); err != nil {
		t.Fatal(err)
	}
	if cat, err = cat.WithOverrides(over); err != nil {
		t.Fatalf("with the row: %v", err)
	}
	p, _ := cat.Provider("box")
	ml, err := (&catalog.Lister{}).List(context.Background(), p, catalog.ListOptions{Refresh: true})
	if err != nil || ml.Source != catalog.SourceLive || len(ml.Models) != 2 || ml.Models[0].ID != "alpha" {
		t.Fatalf("listing: %+v, %v", ml, err)
	}
	if err := catalog.Probe(context.Background(), p, "k1", nil); err != nil {
		t.Errorf("probe: %v", err)
	}
}

func checkConfigTakesRow(t *testing.T, withRow []Format) {
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "cfg"), "XDG_STATE_HOME": filepath.Join(home, "state"),
		"XDG_DATA_HOME": filepath.Join(home, "data"), "XDG_CACHE_HOME": filepath.Join(home, "cache")}
	paths, err := config.ResolvePaths(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(paths.ConfigFile), 0o700); err != nil {
		t.Fatal(err)
	}
	// A local format's table may leave base_url out.
	if err := os.WriteFile(paths.ConfigFile, []byte("[providers.box]\ntype = \"fake-wire\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	load := func(fs []Format) error {
		_, _, err := config.Load(config.LoadOptions{Getenv: func(k string) string { return env[k] }, NoLegacyImport: true,
			KnownProviders: []string{"openai"}, WireFormats: configFormats(fs)})
		return err
	}
	if err := load(Formats()); err == nil || !strings.Contains(err.Error(), `providers.box.type must be one of openai, openai-responses, anthropic, gemini, ollama, not "fake-wire"`) {
		t.Errorf("without the row: %v", err)
	}
	if err := load(withRow); err != nil {
		t.Errorf("with the row: %v", err)
	}
}
