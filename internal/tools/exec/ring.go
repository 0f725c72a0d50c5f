package exec

import (
	"bytes"
	"strings"
	"sync"
)

// lineRing keeps the last n lines written to it. Safe for concurrent use.
type lineRing struct {
	mu      sync.Mutex
	lines   []string // ring storage
	next    int      // index of the slot written next
	full    bool
	partial []byte // current line without its newline
	total   int    // complete lines written
}

func newLineRing(n int) *lineRing { return &lineRing{lines: make([]string, n)} }

func (r *lineRing) write(p []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			room := maxRingLineBytes - len(r.partial)
			if len(p) <= room {
				r.partial = append(r.partial, p...)
				return
			}
			r.partial = append(r.partial, p[:room]...)
			p = p[room:]
			r.commit()
			continue
		}
		chunk := p[:i]
		if room := maxRingLineBytes - len(r.partial); len(chunk) > room {
			chunk = chunk[:max(room, 0)] // the rest of an overlong line is dropped
		}
		r.partial = append(r.partial, chunk...)
		r.commit()
		p = p[i+1:]
	}
}

func (r *lineRing) commit() {
	line := strings.ToValidUTF8(strings.TrimSuffix(string(r.partial), "\r"), "\uFFFD")
	r.partial = r.partial[:0]
	r.lines[r.next] = line
	r.next = (r.next + 1) % len(r.lines)
	r.full = r.full || r.next == 0
	r.total++
}

// last returns up to n of the newest lines (an unfinished last line
// included) and the number of lines written in total.
func (r *lineRing) last(n int) ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	kept := r.next
	if r.full {
		kept = len(r.lines)
	}
	var all []string
	for i := range kept {
		all = append(all, r.lines[(r.next-kept+i+len(r.lines))%len(r.lines)])
	}
	total := r.total
	if len(r.partial) > 0 {
		all = append(all, strings.ToValidUTF8(string(r.partial), "\uFFFD"))
		total++
	}
	if n > 0 && len(all) > n {
		all = all[len(all)-n:]
	}
	return all, total
}
