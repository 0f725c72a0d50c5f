// Package frontmatter splits a markdown file into its YAML front matter
// and its body, the shape Claude Code uses for custom slash commands
// (.claude/commands/*.md), skills (SKILL.md) and subagents
// (.claude/agents/*.md): a first line "---", YAML, a line "---", then the
// body.
package frontmatter

import (
	"bytes"
	"errors"
	"fmt"

	"go.yaml.in/yaml/v3"
)

// ErrUnclosed is returned when a file opens front matter with "---" and
// never closes it.
var ErrUnclosed = errors.New(`front matter opened with "---" is never closed: add a line "---" after it`)

// Split returns the YAML of the front matter (nil when the file has none)
// and the body after it. A file without front matter is all body. Line
// endings may be LF or CRLF; a UTF-8 byte-order mark is skipped.
//
// Errors: ErrUnclosed.
func Split(data []byte) (meta, body []byte, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, _ := cutLine(data)
	if string(first) != "---" {
		return nil, data, nil
	}
	var yml []byte
	for len(rest) > 0 {
		var line []byte
		line, rest, _ = cutLine(rest)
		if string(line) == "---" {
			return yml, rest, nil
		}
		yml = append(yml, line...)
		yml = append(yml, '\n')
	}
	return nil, nil, ErrUnclosed
}

// Parse decodes the front matter of data into v (a pointer to a struct
// with yaml tags; unknown keys are ignored, as Claude Code ignores them)
// and returns the body. A file without front matter leaves v unchanged.
//
// Errors: ErrUnclosed, or the YAML error (with its line) wrapped with
// "front matter".
func Parse(data []byte, v any) (body []byte, err error) {
	meta, body, err := Split(data)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(meta)) == 0 {
		return body, nil
	}
	if err := yaml.Unmarshal(meta, v); err != nil {
		return nil, fmt.Errorf("front matter: %w", err)
	}
	return body, nil
}

// cutLine returns the first line of b without its line ending, the rest,
// and whether a line ending was found.
func cutLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return bytes.TrimSuffix(b, []byte("\r")), nil, false
	}
	return bytes.TrimSuffix(b[:i], []byte("\r")), b[i+1:], true
}
