package cli

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/llm"
)

// attachParts is the first message of a headless run: the prompt, then
// each --attach file through the loader (text in a <file> part, images as
// image parts for a model that sees them). A file that cannot be attached
// is a usage error (exit 2); notes (a cut, images the model cannot see)
// go to stderr.
func (a *cliApp) attachParts(ctx context.Context, rt *app.Runtime, files []string, prompt string) ([]llm.Part, error) {
	parts := []llm.Part{{Type: llm.PartText, Text: prompt}}
	for _, f := range files {
		abs, err := filepath.Abs(f)
		if err != nil {
			return nil, usageErr("--attach %s: %v", f, err)
		}
		att, err := rt.LoadAttachment(ctx, abs, "")
		if err != nil {
			return nil, usageErr("--attach: %v", err)
		}
		for _, n := range att.Notes {
			fmt.Fprintf(a.proc.Stderr, "aidex: %s: %s\n", att.Name, n)
		}
		parts = append(parts, att.Parts...)
	}
	return parts, nil
}
