// Package sse decodes Server-Sent Events streams
// (https://html.spec.whatwg.org/multipage/server-sent-events.html) as the
// model providers send them, with few allocations per event.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Event is one dispatched event: Name is the `event:` field ("" when the
// server sent none, i.e. "message"), Data the `data:` lines joined with "\n",
// ID the `id:` field. Data and Name are only valid until the next call to
// [Reader.Next].
type Event struct {
	Name []byte
	Data []byte
	ID   []byte
}

// Reader reads events from an SSE stream.
type Reader struct {
	br    *bufio.Reader
	line  []byte
	ev    Event
	data  bytes.Buffer
	name  []byte
	id    []byte
	ended bool
}

// NewReader returns a reader over r with a 64 KiB buffer; longer lines are
// assembled without limit.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next event. It returns io.EOF after the last event; an
// event still open when the stream ends (no final blank line) is dispatched
// first. Other errors are the underlying reader's. Comment lines (":...")
// and unknown fields are skipped, as the specification says.
func (r *Reader) Next() (*Event, error) {
	if r.ended {
		return nil, io.EOF
	}
	r.data.Reset()
	r.name = r.name[:0]
	r.id = r.id[:0]
	hasData := false
	for {
		line, err := r.readLine()
		if err != nil {
			if errors.Is(err, io.EOF) {
				r.ended = true
				if len(line) > 0 {
					hasData = r.field(line) || hasData
				}
				if hasData {
					return r.dispatch(), nil
				}
			}
			return nil, err
		}
		if len(line) == 0 {
			if hasData {
				return r.dispatch(), nil
			}
			r.name = r.name[:0]
			continue
		}
		hasData = r.field(line) || hasData
	}
}

func (r *Reader) dispatch() *Event {
	r.ev.Name = r.name
	r.ev.Data = r.data.Bytes()
	r.ev.ID = r.id
	return &r.ev
}

// field processes one non-empty line and reports whether it was a data line.
func (r *Reader) field(line []byte) bool {
	if line[0] == ':' {
		return false
	}
	name, value, found := bytes.Cut(line, []byte{':'})
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
	}
	switch string(name) {
	case "data":
		if r.data.Len() > 0 {
			r.data.WriteByte('\n')
		}
		r.data.Write(value)
		return true
	case "event":
		r.name = append(r.name[:0], value...)
	case "id":
		r.id = append(r.id[:0], value...)
	}
	return false
}

// readLine returns the next line without its terminator (\n or \r\n; no
// provider ends lines with a bare \r, so that form is not split).
func (r *Reader) readLine() ([]byte, error) {
	r.line = r.line[:0]
	for {
		chunk, err := r.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			r.line = append(r.line, chunk...)
			continue
		}
		if len(r.line) > 0 || err != nil {
			r.line = append(r.line, chunk...)
			chunk = r.line
		}
		chunk = bytes.TrimSuffix(chunk, []byte{'\n'})
		chunk = bytes.TrimSuffix(chunk, []byte{'\r'})
		if err != nil {
			return chunk, err
		}
		return chunk, nil
	}
}
