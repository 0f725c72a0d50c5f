package memstore

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Caps of the pinned-memories note, in bytes.
const (
	maxPinnedEntryBytes = 600
	maxPinnedNoteBytes  = 6000
)

// PinnedNotes returns the system-prompt notes for the pinned memories of
// the workspace (project scope; "" skips it, e.g. for an untrusted folder)
// and of the global directory globalDir (GlobalDir(configDir); "" skips
// it): nil when nothing is pinned, else one note listing the entries, most
// recent first, each cut at 600 bytes and the note at 6000 bytes. The
// error reports an unreadable memory file; the notes are then nil.
func PinnedNotes(workspace, globalDir string) ([]string, error) {
	s := NewStore(workspace, globalDir, nil)
	es, err := s.List(context.Background(), Query{PinnedOnly: true, Limit: -1})
	if err != nil {
		return nil, fmt.Errorf("pinned memories: %w", err)
	}
	if len(es) == 0 {
		return nil, nil
	}
	var b strings.Builder
	b.WriteString("Pinned memories (facts and preferences the user asked you to keep in mind across sessions):")
	for i, e := range es {
		line := "\n- "
		if e.Category != "" {
			line += "[" + e.Category + "] "
		}
		line += strings.Join(strings.Fields(cut(e.Content, maxPinnedEntryBytes)), " ")
		if len(e.Tags) > 0 {
			line += " (tags: " + strings.Join(e.Tags, ", ") + ")"
		}
		if b.Len()+len(line) > maxPinnedNoteBytes {
			fmt.Fprintf(&b, "\n- ... and %d more pinned memories (load_memory shows them)", len(es)-i)
			break
		}
		b.WriteString(line)
	}
	return []string{b.String()}, nil
}

// cut shortens s to at most n bytes at a rune boundary, marking the cut.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
