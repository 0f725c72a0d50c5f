package tui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// A first run with no usable provider (no key, nothing on Ollama's port,
// the key-free provider unreachable as when offline) opens the provider
// picker; /provider → custom asks for the server's base URL, lists its
// models, and the one picked is saved as [providers.local] in the config
// file: the session starts on it, a message is answered without a key,
// and the next start comes back on it.
func TestE2EFirstRunOfflineCustomServer(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Hello from the local server."})
	var serverURL, cfgFile string
	e := startWith(t, script, func(url string) string {
		serverURL = url
		closed := strings.TrimSuffix(closedURL(t), "/v1")
		return "ollama_base_url = \"" + closed + "\"\n\n[providers.pollinations]\nbase_url = \"" + closed + "/v1\"\n"
	})
	e.waitFor("Welcome to aidex", "Pick a model provider")
	e.keys("-l", "custom — Custom")
	e.poll("the filtered list", func() bool { return strings.Contains(e.screen(), "› custom — Custom") })
	e.keys("Enter")
	e.waitFor("Server base URL")
	e.keys("-l", serverURL+"/v1")
	e.waitFor(serverURL + "/v1█")
	e.keys("Enter")
	e.waitFor("Model of "+serverURL+"/v1", "scripted-a", "scripted-b")
	e.keys("Down")
	e.keys("Enter")
	e.waitFor("saved [providers.local]", "ready: local/scripted-b")
	e.typeLine("hi")
	e.waitFor("Hello from the local server.")

	cfgFile = filepath.Join(filepath.Dir(e.ws), "config", "aidex", "config.toml")
	data, err := os.ReadFile(cfgFile)
	require.NoError(t, err)
	require.Contains(t, string(data), "[providers.local]\ntype = \"openai\"\nbase_url = \""+serverURL+"/v1\"\nmodels = [\"scripted-b\"]\n")
	require.Contains(t, string(data), "[providers.pollinations]", "the file's other content is kept")

	e.launch()
	e.poll("the next start on local/scripted-b", func() bool { return strings.Contains(e.statusLine(), "local/scripted-b") })
}

// Switching to a provider of the config file that has no models list
// works: it takes the server's first model and opens the picker of the
// server's models, where another can be chosen.
func TestE2ESwitchToProviderWithoutModels(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "Answer from box."})
	e := startWith(t, script, func(url string) string {
		return "provider = \"fake\"\nmodel = \"scripted-a\"\n\n[providers.fake]\ntype = \"openai\"\nbase_url = \"" + url + "\"\napi_key = \"test-key\"\nmodels = [\"scripted-a\"]\n\n" +
			"[providers.box]\ntype = \"openai\"\nbase_url = \"" + url + "/v1\"\napi_key_env = \"BOX_KEY\"\n"
	})
	e.waitFor("fake/scripted-a")
	e.typeLine("/provider box")
	e.waitFor("provider: box · model scripted-a", "Model of box")
	e.keys("Down")
	e.keys("Enter")
	e.waitFor("model: box/scripted-b")
	e.typeLine("hi")
	e.waitFor("Answer from box.")
	reqs := script.Requests()
	require.Contains(t, string(reqs[len(reqs)-1]), `"model":"scripted-b"`)
}
