package web

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/zelvior/aidex/internal/llm/llmtest"
	"github.com/zelvior/aidex/internal/loader/loadertest"
)

// TestBrowserDropUpload drops a PNG and a DOCX on the chat (a synthetic
// drop event with a DataTransfer): each is uploaded (POST /api/upload),
// shown as a chip (the image with a thumbnail), stored under the state
// directory and not in the workspace; the message then carries the
// document's text to the model.
func TestBrowserDropUpload(t *testing.T) {
	ctx := browser(t)
	model := llmtest.NewScript(t, llmtest.Turn{Text: "Read it."})
	e := newEnv(t, model, "")
	png := base64.StdEncoding.EncodeToString(loadertest.PNG(t, 30, 20))
	docx := base64.StdEncoding.EncodeToString(loadertest.DOCX(t, "Plan", "Ship the loaders."))
	do(t, ctx, "open the page", chromedp.Navigate(e.ts.URL+"/?token="+testToken))
	waitJS(t, ctx, "the page to load", `document.body.dataset.ready === '1'`)
	drop := `(() => {
  const file = (b64, name, type) => new File([Uint8Array.from(atob(b64), (c) => c.charCodeAt(0))], name, { type });
  const dt = new DataTransfer();
  dt.items.add(file('` + png + `', 'shot.png', 'image/png'));
  dt.items.add(file('` + docx + `', 'plan.docx', ''));
  document.querySelector('#panel-chat').dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
  return true;
})()`
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](drop)); err != nil {
		t.Fatalf("drop: %v", err)
	}
	waitJS(t, ctx, "two chips", `document.querySelectorAll('#attachments .attachment-chip').length === 2`)
	waitJS(t, ctx, "the image chip with its thumbnail", `document.querySelector('#attachments .attachment-chip[data-kind="image"] img.thumb')?.naturalWidth === 30`)
	chips, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#attachments').innerText`))
	if !strings.Contains(chips, "shot.png") || !strings.Contains(chips, "plan.docx") {
		t.Fatalf("chips %q, want shot.png and plan.docx", chips)
	}
	note, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector('#attachments .attachment-chip[data-kind="image"] .chip-note')?.title || ''`))
	if !strings.Contains(note, "this model cannot see images") {
		t.Errorf("the image chip's note %q, want that the model cannot see images", note)
	}
	screenshot(t, ctx, "upload-chips")
	stored, _ := filepath.Glob(filepath.Join(e.home, ".local", "state", "aidex", "attachments", "*", "*", "plan.docx"))
	if len(stored) != 1 {
		t.Fatalf("plan.docx stored %d times under the state directory", len(stored))
	}
	if entries, _ := os.ReadDir(e.ws); len(entries) != 0 {
		t.Fatalf("the upload wrote into the workspace: %v", entries)
	}
	do(t, ctx, "send", chromedp.SetValue(chromedp.CSS("#chat-input"), "summarize"), chromedp.Click(chromedp.CSS("#send")))
	waitJS(t, ctx, "the answer", `document.querySelector('.msg.assistant')?.innerText.includes('Read it.') && !document.body.classList.contains('running')`)
	reqs := model.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0]), "Ship the loaders.") || !strings.Contains(string(reqs[0]), "summarize") {
		t.Fatalf("the model's request lacks the document or the message: %d requests", len(reqs))
	}
	if !strings.Contains(string(reqs[0]), "cannot see images") {
		t.Errorf("the text-only model is not told it cannot see the image")
	}
	checkNoPageErrors(t, ctx)
}
