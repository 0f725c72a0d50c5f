package openai

import "strings"

// The tags open models write around their reasoning in content.
const (
	thinkOpen  = "<think>"
	thinkClose = "</think>"
)

// thinkSplitter separates `<think>...</think>` from streamed content. Tags
// may be split across deltas: a possible partial tag at the end of a delta is
// held back until the next delta (or flush) decides it.
type thinkSplitter struct {
	inside  bool
	pending string
}

// write splits s, reporting answer text to text and reasoning to reason.
func (t *thinkSplitter) write(s string, text, reason func(string)) {
	buf := t.pending + s
	t.pending = ""
	for {
		tag := thinkOpen
		if t.inside {
			tag = thinkClose
		}
		if i := strings.Index(buf, tag); i >= 0 {
			t.emit(buf[:i], text, reason)
			t.inside = !t.inside
			buf = buf[i+len(tag):]
			continue
		}
		k := partialSuffix(buf, tag)
		t.emit(buf[:len(buf)-k], text, reason)
		t.pending = buf[len(buf)-k:]
		return
	}
}

// flush reports the held-back text as it stands.
func (t *thinkSplitter) flush(text, reason func(string)) {
	t.emit(t.pending, text, reason)
	t.pending = ""
}

func (t *thinkSplitter) emit(s string, text, reason func(string)) {
	if s == "" {
		return
	}
	if t.inside {
		reason(s)
	} else {
		text(s)
	}
}

// partialSuffix returns the length of the longest suffix of s that is a
// proper prefix of tag.
func partialSuffix(s, tag string) int {
	for n := min(len(s), len(tag)-1); n > 0; n-- {
		if strings.HasSuffix(s, tag[:n]) {
			return n
		}
	}
	return 0
}
