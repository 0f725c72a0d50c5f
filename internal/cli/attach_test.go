package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/loader/loadertest"
)

// TestAttachSendsImageInFirstRequest: `aidex -p "describe" --attach
// shot.png` sends the image (and a document's text) in the first request.
func TestAttachSendsImageInFirstRequest(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "a gradient"})
	e := newE2E(t, srv, "anthropic", "")
	shot := loadertest.Write(t, e.ws, "shot.png", loadertest.PNG(t, 32, 16))
	memo := loadertest.Write(t, t.TempDir(), "memo.docx", loadertest.DOCX(t, "Plan", "Ship it."))
	r := e.run(context.Background(), "-p", "describe", "--attach", shot, "--attach", memo)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d requests, want 1", len(reqs))
	}
	body := string(reqs[0])
	for _, want := range []string{`"type":"image"`, `"media_type":"image/png"`, `"data":"iVBOR`,
		`\u003cfile path=\"shot.png\" type=\"image\"\u003e`, "Ship it.", "# Plan", `"text":"describe"`} {
		if !strings.Contains(body, want) {
			t.Errorf("first request lacks %s:\n%.2000s", want, body)
		}
	}
}

func TestAttachToTextOnlyModelNotes(t *testing.T) {
	srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
	e := newE2E(t, srv, "openai", "")
	shot := loadertest.Write(t, e.ws, "shot.png", loadertest.PNG(t, 8, 8))
	r := e.run(context.Background(), "-p", "describe", "--attach", shot)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "shot.png: this model cannot see images") || !strings.Contains(r.stderr, "choose a vision model with /model") {
		t.Errorf("stderr %q, want the note", r.stderr)
	}
	if body := string(srv.Requests()[0]); strings.Contains(body, "image_url") || !strings.Contains(body, "cannot see images") {
		t.Errorf("request sends the image or lacks the note:\n%.1500s", body)
	}
}

func TestAttachRefusesBadFiles(t *testing.T) {
	srv := llmtest.NewScript(t)
	e := newE2E(t, srv, "openai", "")
	blob := filepath.Join(e.ws, "blob.bin")
	if err := os.WriteFile(blob, []byte{0, 1, 2, 3, 0xff}, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{blob, "binary file (application/octet-stream, 5 B)"},
		{filepath.Join(e.ws, "missing.png"), "no such file"},
	} {
		r := e.run(context.Background(), "-p", "describe", "--attach", c.path)
		if r.code != ExitUsage || !strings.Contains(r.stderr, c.want) {
			t.Errorf("--attach %s: exit %d, stderr %q; want exit 2 naming %q", c.path, r.code, r.stderr, c.want)
		}
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent for refused attachments", n)
	}
}

// TestAttachPDF: a small PDF goes to an Anthropic model as a document;
// to a model of another host (OpenAI wire format) as its text per page.
func TestAttachPDF(t *testing.T) {
	pdf := loadertest.PDF(t, 2)
	for _, c := range []struct {
		wire string
		want []string
		not  string
	}{
		{"anthropic", []string{`"type":"document"`, `"media_type":"application/pdf"`, "(the PDF document follows: 2 pages)"}, "page1marker"},
		{"openai", []string{"--- page 1 of 2 ---", "page1marker", "page2marker"}, `"type":"file"`},
	} {
		srv := llmtest.NewScript(t, llmtest.Turn{Text: "ok"})
		e := newE2E(t, srv, c.wire, "")
		path := loadertest.Write(t, e.ws, "report.pdf", pdf)
		r := e.run(context.Background(), "-p", "summarize", "--attach", path)
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", c.wire, r.code, r.stderr)
		}
		body := string(srv.Requests()[0])
		for _, w := range c.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: the request lacks %s", c.wire, w)
			}
		}
		if strings.Contains(body, c.not) {
			t.Errorf("%s: the request holds %s", c.wire, c.not)
		}
	}
}
