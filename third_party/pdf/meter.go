// Copyright 2026 The aidex Authors. Use of this source code is governed by
// a BSD-style license that can be found in the LICENSE file.

package pdf

// aidex patch: metering (see PATCHES.md).

import (
	"fmt"
	"io"
)

// A Meter is told of the work a Reader does and may stop it: when a method
// returns an error, the Reader panics with a value that wraps it (see
// StopError), which NewReaderMeter returns as its error and every other
// method lets through to the caller's recover. Nothing here is safe for
// concurrent use, like the rest of the Reader.
type Meter interface {
	// Work is told of n units of work: an object read, a
	// cross-reference entry, a page-tree node, a content-stream token, a
	// CMap entry (one unit each), a text run (four).
	Work(n int64) error
	// Bytes is told of n bytes decompressed (or decoded) from a stream.
	Bytes(n int64) error
	// Depth is told of the nesting depth of the current reading: objects
	// read within the reading of another (object streams), page-tree
	// levels, /Parent links followed.
	Depth(d int) error
}

// StopError is the panic value of a Reader its Meter stopped; Unwrap
// returns the Meter's error.
type StopError struct{ Err error }

func (e StopError) Error() string { return e.Err.Error() }

// Unwrap returns the Meter's error.
func (e StopError) Unwrap() error { return e.Err }

// NewReaderMeter is NewReader with every unit of work, byte decompressed
// and level of nesting told to m (nil: no metering).
func NewReaderMeter(f io.ReaderAt, size int64, m Meter) (*Reader, error) {
	return newReader(f, size, nil, m)
}

func (r *Reader) work(n int64) {
	if r == nil || r.meter == nil {
		return
	}
	if err := r.meter.Work(n); err != nil {
		panic(StopError{err})
	}
}

func (r *Reader) bytes(n int64) {
	if r == nil || r.meter == nil {
		return
	}
	if err := r.meter.Bytes(n); err != nil {
		panic(StopError{err})
	}
}

func (r *Reader) depth(d int) {
	if r == nil || r.meter == nil {
		return
	}
	if err := r.meter.Depth(d); err != nil {
		panic(StopError{err})
	}
}

// meteredReader tells the Reader's meter of every byte read from a
// decoded stream.
type meteredReader struct {
	r   *Reader
	src io.Reader
}

func (m *meteredReader) Read(p []byte) (int, error) {
	n, err := m.src.Read(p)
	m.r.bytes(int64(n))
	return n, err
}

// isStop reports whether a recovered panic value is a Meter's stop, which
// no recover inside the package may swallow.
func isStop(x interface{}) bool {
	_, ok := x.(StopError)
	return ok
}

// Pages walks the page tree once, from the catalog's /Pages, and returns
// its pages in order. Unlike Page and NumPage it does not trust /Count: a
// node reached again on its own path is a cycle, a node reached twice
// from two parents is an error too, and every node is one unit of work
// and one level of depth for the Meter. A node with /Kids is an
// intermediate node whatever its /Type; any other is a page.
func (r *Reader) Pages() ([]Page, error) {
	root := r.Trailer().Key("Root")
	d, ok := root.data.(dict)
	if !ok {
		return nil, fmt.Errorf("malformed PDF: the catalog (/Root) is not a dictionary")
	}
	var pages []Page
	onPath := map[objptr]bool{}
	seen := map[objptr]bool{}
	var walk func(x object, parent objptr, depth int) error
	walk = func(x object, parent objptr, depth int) error {
		r.work(1)
		r.depth(depth)
		if ptr, ok := x.(objptr); ok {
			if onPath[ptr] {
				return fmt.Errorf("page tree has a cycle at object %d %d R", ptr.id, ptr.gen)
			}
			if seen[ptr] {
				return fmt.Errorf("page tree reaches object %d %d R twice", ptr.id, ptr.gen)
			}
			seen[ptr], onPath[ptr] = true, true
			defer delete(onPath, ptr)
		}
		v := r.resolve(parent, x)
		if v.Kind() != Dict {
			return fmt.Errorf("page tree node %v is not a dictionary", objfmt(x))
		}
		kids := v.Key("Kids")
		if kids.Kind() != Array {
			if v.Key("Type").Name() == "Pages" {
				return nil // an empty node
			}
			pages = append(pages, Page{v})
			return nil
		}
		raw := kids.data.(array)
		for _, kid := range raw {
			if err := walk(kid, kids.ptr, depth+1); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(d["Pages"], root.ptr, 1); err != nil {
		return nil, err
	}
	return pages, nil
}
