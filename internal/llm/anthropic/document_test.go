package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// TestDocumentPart: a PDF document part is sent in the wire format's own
// shape (base64 of the bytes).
func TestDocumentPart(t *testing.T) {
	req := &llm.Request{Model: "m", Messages: []llm.Message{{Role: llm.RoleUser, Parts: []llm.Part{
		{Type: llm.PartText, Text: "summarize"},
		{Type: llm.PartDocument, MIMEType: "application/pdf", Data: []byte("%PDF-1.7"), Text: "report.pdf"},
	}}}}
	wr, err := buildRequest(req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := json.Marshal(wr)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"JVBERi0xLjc="}}`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("request lacks %s:\n%s", want, body)
		}
	}
}
