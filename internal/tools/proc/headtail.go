package proc

import (
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// DefaultMaxOutputChars is the default cap on the command output a tool
// returns to the model, in characters: past it the first and last halves
// are kept with a "[... N characters cut ...]" marker in between.
const DefaultMaxOutputChars = 30000

// HeadTail is an io.Writer that keeps the first head and the last tail
// bytes written and counts the characters in between, so a command that
// prints gigabytes (`yes`) needs bounded memory. Safe for concurrent use.
type HeadTail struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte // ring contents, oldest first once trimmed
	headCap int
	tailCap int
	total   int64 // bytes written
	chars   int64 // characters written (UTF-8 lead bytes and ASCII)
}

// NewHeadTail returns a writer keeping about maxChars characters (at most
// maxChars bytes) in total; maxChars <= 0 means DefaultMaxOutputChars.
func NewHeadTail(maxChars int) *HeadTail {
	if maxChars <= 0 {
		maxChars = DefaultMaxOutputChars
	}
	h := maxChars / 2
	return &HeadTail{headCap: h, tailCap: maxChars - h}
}

// Write implements io.Writer; it never fails.
func (w *HeadTail) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	w.total += int64(n)
	w.chars += int64(charCount(p))
	if room := w.headCap - len(w.head); room > 0 {
		k := min(room, len(p))
		w.head = append(w.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	if len(p) >= w.tailCap {
		w.tail = append(w.tail[:0], p[len(p)-w.tailCap:]...)
		return n, nil
	}
	w.tail = append(w.tail, p...)
	if len(w.tail) > 2*w.tailCap { // amortised trim
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-w.tailCap:]...)
	}
	return n, nil
}

// charCount counts the characters in p: every byte that does not continue
// a UTF-8 sequence.
func charCount(p []byte) int {
	n := 0
	for _, b := range p {
		if b&0xC0 != 0x80 {
			n++
		}
	}
	return n
}

// String returns the kept output as valid UTF-8 and whether anything was
// cut. When cut, the head and tail are joined by a line
// "[... N characters cut ...]".
func (w *HeadTail) String() (string, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	tail := w.tail
	if len(tail) > w.tailCap {
		tail = tail[len(tail)-w.tailCap:]
	}
	if w.total <= int64(w.headCap+w.tailCap) {
		return strings.ToValidUTF8(string(w.head)+string(tail), "\uFFFD"), false
	}
	// Drop partial characters at the seams.
	head := w.head
	for len(head) > 0 && !utf8.FullRune(head[lastRuneStart(head):]) {
		head = head[:lastRuneStart(head)]
	}
	for len(tail) > 0 && tail[0]&0xC0 == 0x80 {
		tail = tail[1:]
	}
	dropped := w.chars - int64(charCount(head)) - int64(charCount(tail))
	var b strings.Builder
	b.Grow(len(head) + len(tail) + 48)
	b.WriteString(strings.ToValidUTF8(string(head), "\uFFFD"))
	if len(head) > 0 && head[len(head)-1] != '\n' {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[... %d characters cut ...]\n", dropped)
	b.WriteString(strings.ToValidUTF8(string(tail), "\uFFFD"))
	return b.String(), true
}

func lastRuneStart(p []byte) int {
	for i := len(p) - 1; i >= 0 && i >= len(p)-utf8.UTFMax; i-- {
		if p[i]&0xC0 != 0x80 {
			return i
		}
	}
	return len(p) - 1
}
