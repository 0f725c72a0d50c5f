package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/loader/loadertest"
)

// readPNG has a scripted model (OpenAI wire format) call read_file on a
// PNG, with providerExtra added to [providers.fake], and returns the
// second request's body.
func readPNG(t *testing.T, providerExtra string) string {
	t.Helper()
	script := llmtest.NewScript(t,
		llmtest.Turn{Calls: []llmtest.Call{{Name: "read_file", Args: `{"path":"shot.png"}`}}},
		llmtest.Turn{Text: "a gradient"})
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0")+providerExtra)
	require.NoError(t, os.WriteFile(filepath.Join(home.WS, "shot.png"), loadertest.PNG(t, 64, 48), 0o644))
	env := home.Env
	ctx := context.Background()
	svc, err := Start(ctx, StartOptions{Options: Options{Workspace: home.WS, Getenv: func(k string) string { return env[k] }}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer live.Close()
	_, err = live.Run(ctx, prompt("describe shot.png"), func(agent.Event) {})
	require.NoError(t, err)
	reqs := script.Requests()
	require.Len(t, reqs, 2)
	return string(reqs[1])
}

func TestReadFileImageReachesVisionModel(t *testing.T) {
	body := readPNG(t, "vision_models = [\"m1\"]\n")
	require.Contains(t, body, `"role":"tool"`)
	require.Contains(t, body, "Image shot.png: image/png, 64×48 pixels")
	require.Contains(t, body, `"type":"image_url"`)
	require.Contains(t, body, `"url":"data:image/png;base64,iVBOR`)
}

func TestReadFileImageNoteForTextOnlyModel(t *testing.T) {
	body := readPNG(t, "")
	require.NotContains(t, body, "image_url")
	require.Contains(t, body, "this model cannot see images (fake/m1 does not take image input; if it does, add it to vision_models under [providers.fake]); choose a vision model with /model")
	require.True(t, strings.Contains(body, "Image shot.png"), body)
}

// TestImagePartsReplacedForTextOnlyModel: image and PDF parts already in
// the conversation (or sent by an API client) reach a text-only model as
// notes, not as parts it would refuse.
func TestImagePartsReplacedForTextOnlyModel(t *testing.T) {
	script := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0"))
	env := home.Env
	ctx := context.Background()
	svc, err := Start(ctx, StartOptions{Options: Options{Workspace: home.WS, Getenv: func(k string) string { return env[k] }}})
	require.NoError(t, err)
	t.Cleanup(func() { _ = svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	live, err := svc.Session(ctx, sess, SessionOptions{})
	require.NoError(t, err)
	defer live.Close()
	parts := append(prompt("look"), llm.Part{Type: llm.PartImage, MIMEType: "image/png", Data: loadertest.PNG(t, 4, 4)},
		llm.Part{Type: llm.PartDocument, MIMEType: "application/pdf", Data: []byte("%PDF-1.7"), Text: "r.pdf"})
	_, err = live.Run(ctx, parts, func(agent.Event) {})
	require.NoError(t, err)
	body := string(script.Requests()[0])
	require.NotContains(t, body, "image_url")
	require.NotContains(t, body, `"type":"file"`)
	require.Contains(t, body, "[image not shown: this model cannot see images")
	require.Contains(t, body, "[PDF document r.pdf not sent")
}
