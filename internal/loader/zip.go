package loader

import (
	"archive/zip"
	"bytes"
	"cmp"
	"errors"
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
// is read (read, copyZip): archive/zip never reads a member past the size
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

// copyZip writes a new zip of the members keep accepts, copying their
// compressed bytes as they are (nothing is decompressed), and charges
// what each declares it expands to: a library that reads every member
// whole (excelize) then reads at most the document's Bytes. archive/zip
// refuses to read a member past its declared size, so the declarations
// bound what the library can expand.
func (z *zipArchive) copyZip(keep func(name string) bool) ([]byte, error) {
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	for _, f := range z.zr.File {
		if !keep(partName(f.Name)) {
			continue
		}
		if f.UncompressedSize64 > uint64(z.bud.room()) {
			return nil, z.bud.fail(&LimitError{Limit: "Bytes", Max: z.bud.lim.Bytes, What: f.Name})
		}
		if err := z.bud.expand(int64(f.UncompressedSize64), f.Name); err != nil {
			return nil, err
		}
		raw, err := f.OpenRaw()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		w, err := zw.CreateRaw(&f.FileHeader)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		if _, err := io.Copy(w, raw); err != nil {
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// countElements charges units of work for each XML element of member f
// (each "<" that opens a tag: comments and CDATA may add a few, never
// fewer), reading it without keeping it. Its bytes are not charged again:
// copyZip charged the size it declares, which archive/zip never reads
// past.
func (z *zipArchive) countElements(f *zip.File, units int64) error {
	if err := z.bud.check(f.Name); err != nil {
		return err
	}
	r, err := f.Open()
	if err != nil {
		return fmt.Errorf("%s: %w", f.Name, err)
	}
	defer r.Close()
	buf := make([]byte, 64<<10)
	var n int64
	lt := false // the previous chunk ended with "<"
	for {
		m, err := r.Read(buf)
		p := buf[:m]
		if lt && m > 0 && startsName(p[0]) {
			n++
		}
		for i := bytes.IndexByte(p, '<'); i >= 0; i = bytes.IndexByte(p, '<') {
			if i+1 < len(p) && startsName(p[i+1]) {
				n++
			}
			p = p[i+1:]
		}
		lt = m > 0 && buf[m-1] == '<'
		if n > 0 {
			if cerr := z.bud.charge(n*units, f.Name); cerr != nil {
				return cerr
			}
			n = 0
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
	}
}

// startsName reports whether c can start an XML element name.
func startsName(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' || c == ':' || c >= 0x80
}
