package loader

import (
	"archive/zip"
	"bytes"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
)

// zipArchive is a DOCX, XLSX or PPTX package checked before any member
// is read (see openZip); read takes members from it under the budget.
type zipArchive struct {
	zr     *zip.Reader
	byName map[string]*zip.File // by partName
	bud    *budget
}

// partName is the name under which OPC (ECMA-376 part 2) compares part
// names: case-insensitive, "/" for "\".
func partName(name string) string {
	return strings.ToLower(strings.ReplaceAll(name, `\`, "/"))
}

// openZip reads the central directory of data and checks it as a whole
// before any member is read: 16 units of work a member, no two members
// with the same part name (which one a reader takes is the reader's
// choice), and no two members sharing bytes of the file (overlapping
// members expand the same compressed bytes again and again: the
// "overlapping zip bomb"). What each member expands to is checked as it
// is read (read, open): archive/zip never reads a member past the size
// its header declares.
func openZip(data []byte, bud *budget) (*zipArchive, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, fmt.Errorf("not a valid zip: %w", err)
	}
	// A member costs 16 units: each holds a zip.File of about 200 bytes
	// (in archive/zip's index and ours), where other units hold 10 to 40.
	if err := bud.charge(16*int64(len(zr.File)), "the zip directory"); err != nil {
		return nil, err
	}
	z := &zipArchive{zr: zr, byName: make(map[string]*zip.File, len(zr.File)), bud: bud}
	type span struct {
		start, end int64
		name       string
	}
	spans := make([]span, 0, len(zr.File))
	for _, f := range zr.File {
		key := partName(f.Name)
		if prev, dup := z.byName[key]; dup {
			return nil, fmt.Errorf("the zip has two members named %s (%s and %s): a reader would pick one at random", key, prev.Name, f.Name)
		}
		z.byName[key] = f
		off, err := f.DataOffset()
		if err != nil {
			return nil, fmt.Errorf("zip member %s: %w", f.Name, err)
		}
		end := off + int64(f.CompressedSize64)
		if end < off || end > int64(len(data)) {
			return nil, fmt.Errorf("zip member %s claims %d bytes past the end of the file", f.Name, end-int64(len(data)))
		}
		spans = append(spans, span{off, end, f.Name})
	}
	slices.SortFunc(spans, func(a, b span) int { return cmp.Compare(a.start, b.start) })
	for i := 1; i < len(spans); i++ {
		if spans[i].start < spans[i-1].end {
			return nil, fmt.Errorf("zip members %s and %s overlap (they share bytes %d-%d of the file): a zip bomb", spans[i-1].name, spans[i].name, spans[i].start, min(spans[i].end, spans[i-1].end))
		}
	}
	return z, nil
}

// has reports whether the archive has the member name.
func (z *zipArchive) has(name string) bool {
	_, ok := z.byName[partName(name)]
	return ok
}

// read returns the decompressed member name, charging its bytes to the
// budget: a member that declares (or, lying, expands to) more than the
// document's remaining Bytes is refused before or as it is read.
func (z *zipArchive) read(name string) ([]byte, error) {
	f, ok := z.byName[partName(name)]
	if !ok {
		return nil, fmt.Errorf("the file has no %s", name)
	}
	if f.UncompressedSize64 > uint64(z.bud.room()) {
		return nil, z.bud.fail(&LimitError{Limit: "Bytes", Max: z.bud.lim.Bytes, What: f.Name})
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	defer rc.Close()
	b := make([]byte, 0, f.UncompressedSize64)
	buf := bytes.NewBuffer(b)
	if _, err := io.Copy(buf, z.bud.reader(rc, f.Name)); err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	return buf.Bytes(), nil
}

// open returns member name to be read as a stream: what it expands to is
// charged to the budget as it is read, and a member that declares more
// than the document's remaining Bytes is refused before it is opened.
func (z *zipArchive) open(name string) (io.ReadCloser, error) {
	f, ok := z.byName[partName(name)]
	if !ok {
		return nil, fmt.Errorf("the file has no %s", name)
	}
	if f.UncompressedSize64 > uint64(z.bud.room()) {
		return nil, z.bud.fail(&LimitError{Limit: "Bytes", Max: z.bud.lim.Bytes, What: f.Name})
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", f.Name, err)
	}
	return struct {
		io.Reader
		io.Closer
	}{z.bud.reader(rc, f.Name), rc}, nil
}
