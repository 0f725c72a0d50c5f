package commands

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/app/apptest"
	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/loader/loadertest"
)

// visionFixture is newFixture with the scripted model m1 listed in
// vision_models.
func visionFixture(t *testing.T, turns ...llmtest.Turn) *fixture {
	t.Helper()
	script := llmtest.NewScript(t, turns...)
	home := apptest.NewHome(t, apptest.FakeProvider(script.URL, []string{"m1"}, "max_retries = 0")+"vision_models = [\"m1\"]\n")
	ws, env := home.WS, home.Env
	ctx := context.Background()
	svc, err := app.Start(ctx, app.StartOptions{Options: app.Options{Workspace: ws, Flags: map[string]string{}, Getenv: func(k string) string { return env[k] }}})
	require.NoError(t, err)
	t.Cleanup(func() { svc.Close() })
	sess, err := svc.Pick(ctx, "", false)
	require.NoError(t, err)
	c, err := New(ctx, Config{Service: svc, Session: sess})
	require.NoError(t, err)
	t.Cleanup(c.Close)
	return &fixture{c: c, ws: ws, script: script}
}

func (f *fixture) runPrompt(t *testing.T, p Prompt) string {
	t.Helper()
	_, err := f.c.RunWith(context.Background(), p.Parts, nil, func(agent.Event) {})
	require.NoError(t, err)
	reqs := f.script.Requests()
	return string(reqs[len(reqs)-1])
}

func TestMentionAttachesImagesAndDocuments(t *testing.T) {
	f := visionFixture(t)
	loadertest.Write(t, f.ws, "shot.png", loadertest.PNG(t, 20, 10))
	loadertest.Write(t, f.ws, "memo.docx", loadertest.DOCX(t, "Plan", "Ship it."))
	pasted := loadertest.Write(t, t.TempDir(), "elsewhere.png", loadertest.PNG(t, 4, 4))
	secret := loadertest.Write(t, t.TempDir(), "secret.txt", []byte("secret"))
	p := f.c.BuildPrompt(context.Background(), "see @shot.png and @memo.docx and @"+pasted+" and @"+secret)
	require.Equal(t, []string{"shot.png", "memo.docx", pasted}, p.Attached)
	require.Equal(t, []string{secret}, p.Skipped)
	body := f.runPrompt(t, p)
	require.Equal(t, 2, strings.Count(body, `"url":"data:image/png;base64,`), "two images in the request")
	require.Contains(t, body, "Ship it.")
	require.NotContains(t, body, `secret\"`)
}

func TestMentionImageForTextOnlyModelNotes(t *testing.T) {
	f := newFixture(t, "")
	loadertest.Write(t, f.ws, "shot.png", loadertest.PNG(t, 20, 10))
	p := f.c.BuildPrompt(context.Background(), "see @shot.png")
	require.Equal(t, []string{"shot.png"}, p.Attached)
	require.Len(t, p.Notes, 1)
	require.Contains(t, p.Notes[0], "shot.png: this model cannot see images")
	require.NotContains(t, f.runPrompt(t, p), "image_url")
}

func TestLoadDocumentGoesWithNextMessage(t *testing.T) {
	f := visionFixture(t)
	loadertest.Write(t, f.ws, "book.xlsx", loadertest.XLSX(t))
	out, o := f.mustExec(t, "/load book.xlsx")
	require.Empty(t, o.Prompt)
	require.Contains(t, out, "loaded book.xlsx (xlsx): it goes to the model with your next message")
	body := f.runPrompt(t, f.c.BuildPrompt(context.Background(), "sum the sales"))
	require.Contains(t, body, `| South | 250 |`)
	require.Contains(t, body, "sum the sales")
	_, _, err := f.exec(t, "/load "+filepath.Join(f.ws, "missing.pdf"))
	require.ErrorContains(t, err, "no such file")
}

func TestLoadProjectTreeAndFilesWithinBudget(t *testing.T) {
	f := newFixture(t, "")
	loadertest.Write(t, f.ws, "main.go", []byte("package main\n"))
	loadertest.Write(t, f.ws, "docs/guide.md", []byte("# Guide\n"))
	loadertest.Write(t, f.ws, "big.go", []byte(strings.Repeat("x", 200_000)))
	require.NoError(t, os.MkdirAll(filepath.Join(f.ws, "node_modules"), 0o755))
	loadertest.Write(t, f.ws, "node_modules/dep.js", []byte("dep"))
	out, _ := f.mustExec(t, "/load-project **/*.go")
	require.Contains(t, out, "1 file(s)")
	require.Contains(t, out, "left out (over the budget): big.go")
	body := f.runPrompt(t, f.c.BuildPrompt(context.Background(), "explain"))
	var req struct {
		Messages []struct {
			Content any `json:"content"`
		} `json:"messages"`
	}
	require.NoError(t, json.Unmarshal([]byte(body), &req))
	text, _ := json.Marshal(req.Messages)
	for _, want := range []string{"docs/guide.md", "main.go (13 B)", `\u003cfile path=\"main.go\"\u003e\npackage main`} {
		require.Contains(t, string(text), want)
	}
	require.NotContains(t, string(text), "node_modules")
	require.NotContains(t, string(text), "xxxxxxxx")
	_, _, err := f.exec(t, "/load-project [")
	require.ErrorContains(t, err, "not a valid glob")
}
