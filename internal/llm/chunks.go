package llm

import (
	"bytes"
	"io"
)

// chunkSize is the size of one chunk of an encoded request body.
const chunkSize = 64 << 10

// chunks is a request body: bufs, then the items of a [Spliced] body
// comma-separated (the empty ones left out), then after; nil is no body.
// An encoded body is held in chunks of chunkSize bytes, so that writing it
// never copies what was written before; a spliced one points at the
// items' cached encodings, copied only into the reader's buffer as they
// are sent.
type chunks struct {
	bufs  [][]byte
	items []Wire
	after [][]byte
	n     int
}

// Write appends p (to bufs: for a body without items).
func (c *chunks) Write(p []byte) (int, error) {
	written := len(p)
	for len(p) > 0 {
		if len(c.bufs) == 0 || len(c.bufs[len(c.bufs)-1]) == cap(c.bufs[len(c.bufs)-1]) {
			c.bufs = append(c.bufs, make([]byte, 0, chunkSize))
		}
		last := &c.bufs[len(c.bufs)-1]
		k := min(len(p), chunkSize-len(*last))
		*last = append(*last, p[:k]...)
		p = p[k:]
	}
	c.n += written
	return written, nil
}

// reader returns a reader of the whole body from its start. Each Read
// fills p from as many chunks and items as it takes, so a body of many
// small items is still sent in few writes.
func (c *chunks) reader() io.Reader {
	return &chunkReader{bufs: c.bufs, items: c.items, after: c.after}
}

// bytes returns the body in one slice (for tests and small bodies).
func (c *chunks) bytes() []byte {
	if c.items == nil && c.after == nil {
		return bytes.Join(c.bufs, nil)
	}
	b := make([]byte, c.n)
	_, _ = io.ReadFull(c.reader(), b)
	return b
}

// chunkReader reads a body's chunks, then its items, then what follows
// them.
type chunkReader struct {
	bufs  [][]byte
	off   int // into bufs[0], or into items[0]'s segment
	items []Wire
	seg   itemSeg
	comma bool // an item was read: a comma goes before the next one
	after [][]byte
}

// itemSeg is the part of an item being read.
type itemSeg uint8

const (
	segComma itemSeg = iota // the comma before it, unless it is the first
	segBytes                // its bytes
)

// Read copies the next bytes into p.
func (r *chunkReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		switch {
		case len(r.bufs) > 0:
			k := copy(p[n:], r.bufs[0][r.off:])
			n += k
			if r.off += k; r.off == len(r.bufs[0]) {
				r.bufs, r.off = r.bufs[1:], 0
			}
		case len(r.items) > 0:
			n += r.readItem(p[n:])
		case len(r.after) > 0:
			r.bufs, r.after = r.after, nil
		default:
			if n == 0 {
				return 0, io.EOF
			}
			return n, nil
		}
	}
	return n, nil
}

// readItem copies what p takes of items[0] from where the last read
// stopped, and moves to the next item at its end.
func (r *chunkReader) readItem(p []byte) int {
	it := &r.items[0]
	if it.empty() {
		r.items = r.items[1:]
		return 0
	}
	if r.seg == segComma {
		r.seg = segBytes
		if r.comma {
			p[0] = ','
			return 1
		}
		r.comma = true
		return 0
	}
	k := copy(p, it.b[r.off:])
	if r.off += k; r.off == len(it.b) {
		r.nextItem()
	}
	return k
}

// nextItem moves to the next item's start.
func (r *chunkReader) nextItem() {
	r.items, r.off, r.seg = r.items[1:], 0, segComma
}
