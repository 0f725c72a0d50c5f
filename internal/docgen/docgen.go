// Package docgen keeps the reference parts of the pages under docs/ in
// step with the code: every command and flag (docs/cli.md, from the cobra
// command tree), every configuration key (docs/configuration.md, from the
// config schema) and every event type and field (docs/headless.md, from
// the event schema, and the input messages of --input-format
// stream-json). Each generated part sits between two HTML comments
// in its page; the text around them is written by hand. `go generate
// ./internal/docgen` rewrites the parts, and a test fails when a page is
// out of date.
package docgen

//go:generate go run ./gendocs ../..

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"github.com/zelvior/aidex/internal/cli"
	"github.com/zelvior/aidex/internal/config"
	"github.com/zelvior/aidex/internal/llm/wire"
	"github.com/zelvior/aidex/internal/streamjson"
)

// Part is one generated part of a page: the page's path from the
// repository root (slash-separated), the part's name in its markers and
// the text between them.
type Part struct {
	Page, Name, Text string
}

// Parts returns every generated part, computed from the code; root is
// the repository's root folder (the config package's source is read for
// its field comments). Errors: a reference that cannot be built.
func Parts(root string) ([]Part, error) {
	keys, err := config.KeyReference(filepath.Join(root, "internal", "config"), wire.ConfigFormats())
	if err != nil {
		return nil, err
	}
	events, err := streamjson.EventReference()
	if err != nil {
		return nil, err
	}
	inputs, err := streamjson.InputReference()
	if err != nil {
		return nil, err
	}
	return []Part{
		{Page: "docs/cli.md", Name: "commands", Text: cli.Reference()},
		{Page: "docs/configuration.md", Name: "keys", Text: keys},
		{Page: "docs/headless.md", Name: "events", Text: events},
		{Page: "docs/headless.md", Name: "inputs", Text: inputs},
	}, nil
}

// markers returns the lines that open and close the part name.
func markers(name string) (begin, end []byte) {
	return []byte("<!-- BEGIN GENERATED " + name + ": go generate ./internal/docgen; do not edit -->\n"),
		[]byte("<!-- END GENERATED " + name + " -->\n")
}

// Section returns the text of page's part name, between its markers.
// Errors: the page lacks either marker, or has them out of order.
func Section(page []byte, name string) (string, error) {
	begin, end := markers(name)
	_, after, ok := bytes.Cut(page, begin)
	if !ok {
		return "", fmt.Errorf("no line %q", bytes.TrimSpace(begin))
	}
	text, _, ok := bytes.Cut(after, end)
	if !ok {
		return "", fmt.Errorf("no line %q after %q", bytes.TrimSpace(end), bytes.TrimSpace(begin))
	}
	return string(text), nil
}

// Splice returns page with the text of its part name replaced by text.
// Errors: as Section.
func Splice(page []byte, name, text string) ([]byte, error) {
	old, err := Section(page, name)
	if err != nil {
		return nil, err
	}
	begin, _ := markers(name)
	i := bytes.Index(page, begin) + len(begin)
	return slices.Concat(page[:i], []byte(text), page[i+len(old):]), nil
}

// Write rewrites every generated part of the pages under root. Errors:
// as Parts, a page that cannot be read or written, or lacks its markers.
func Write(root string) error {
	parts, err := Parts(root)
	if err != nil {
		return err
	}
	for _, p := range parts {
		path := filepath.Join(root, filepath.FromSlash(p.Page))
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if data, err = Splice(data, p.Name, p.Text); err != nil {
			return fmt.Errorf("%s: %w", p.Page, err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
