package ollama

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// loadFixtures returns the recorded exchanges of wire format "ollama"
// (native /api/chat). The "ollama_generate" exchanges (/api/generate) are
// left out on purpose: that endpoint is not a wire aidex uses for chat.
// Like llmtest.Load, but it decodes a file fully only once its wire format
// matches: llmtest.Load fails on the whole corpus, where some other wire
// formats carry error objects in expect.errors.
func loadFixtures(t *testing.T) []llmtest.Fixture {
	t.Helper()
	dir := llmtest.FixturesDir()
	if dir == "" {
		t.Skip("../shared/fixtures/recorded not found beside the repository: conformance fixtures unavailable")
	}
	paths, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(paths)
	var out []llmtest.Fixture
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var head struct {
			WireFormat string `json:"wire_format"`
		}
		if err := json.Unmarshal(data, &head); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if head.WireFormat != "ollama" {
			continue
		}
		var f llmtest.Fixture
		if err := json.Unmarshal(data, &f); err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		f.Path = filepath.Join(filepath.Base(filepath.Dir(p)), filepath.Base(p))
		out = append(out, f)
	}
	return out
}

func wantUsage(m map[string]any) llm.Usage {
	return llm.Usage{InputTokens: llmtest.Int(m, "prompt_eval_count"), OutputTokens: llmtest.Int(m, "eval_count")}
}

func TestFixtures(t *testing.T) {
	fixtures := loadFixtures(t)
	if len(fixtures) < 7 {
		t.Fatalf("only %d ollama fixtures found", len(fixtures))
	}
	for _, f := range fixtures {
		t.Run(f.Path, func(t *testing.T) {
			srv := llmtest.Serve(t, f)
			c := New(Options{Options: llm.Options{BaseURL: srv.URL}})
			var text strings.Builder
			resp, err := c.Generate(context.Background(), llmtest.Request(f), func(e llm.Event) {
				if e.Type == llm.EventText {
					text.WriteString(e.Text)
				}
			})
			if probs := llmtest.Check(f, resp, err, wantUsage); len(probs) > 0 {
				t.Fatalf("%s", strings.Join(probs, "\n"))
			}
			if text.String() != resp.Message.Text() {
				t.Errorf("text events %q differ from the response", text.String())
			}
			if resp.Model != f.Model() {
				t.Errorf("model %q, want %q", resp.Model, f.Model())
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || reqs[0].Path != "/api/chat" || reqs[0].Method != "POST" {
				t.Fatalf("requests %+v, want one POST /api/chat", reqs)
			}
			var body map[string]any
			if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
				t.Fatal(err)
			}
			if body["model"] != f.Model() || body["stream"] != f.Stream {
				t.Errorf("model %v stream %v", body["model"], body["stream"])
			}
		})
	}
}
