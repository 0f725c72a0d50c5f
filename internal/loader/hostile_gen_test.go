package loader_test

// Generators of hostile documents: each builds, in memory and in a few
// milliseconds, a small file that made an unbounded loader hang, crash or
// exhaust memory. hostile_test.go loads them; fuzz_test.go seeds the
// fuzzers with them.

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
)

// pdfFile writes a PDF of the given objects (objs[i] is the body of object
// i+1, without "N 0 obj"/"endobj") and a classic cross-reference table.
// trailer returns the trailer dictionary's entries given the xref table's
// offset (so that a /Prev can point back at it); /Size is added.
func pdfFile(objs []string, trailer func(xref int) string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, off := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d %s >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, trailer(xref), xref)
	return b.Bytes()
}

// rootIs is a trailer naming object 1 as the catalog.
func rootIs(int) string { return "/Root 1 0 R" }

// onePage is a catalog (1), a page tree (2) and one page (3) whose content
// stream is object 4.
func onePage(content string) []string {
	return []string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
		fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content),
	}
}

// xrefEntry is one row of a cross-reference stream: type 1 (offset of an
// object in the file) or type 2 (index idx in object stream strm).
type xrefEntry struct {
	typ       int
	off, strm int
	idx       int
}

// pdfXrefStream writes a PDF whose objects are the given direct objects
// (numbered from 1) followed by a cross-reference stream (the next number).
// entries(offs) returns the stream's rows for objects 0.. given the
// objects' offsets; dict adds entries to the stream's dictionary (/Root,
// /Prev, /Size override) given the stream's own offset.
func pdfXrefStream(objs []string, entries func(offs []int) []xrefEntry, dict func(self int) string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offs := make([]int, len(objs)+1)
	for i, o := range objs {
		offs[i+1] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	self := b.Len()
	offs = append(offs, self)
	rows := entries(offs)
	var data bytes.Buffer
	for _, e := range rows {
		data.WriteByte(byte(e.typ))
		switch e.typ {
		case 1:
			_ = binary.Write(&data, binary.BigEndian, uint32(e.off))
			_ = binary.Write(&data, binary.BigEndian, uint16(0))
		case 2:
			_ = binary.Write(&data, binary.BigEndian, uint32(e.strm))
			_ = binary.Write(&data, binary.BigEndian, uint16(e.idx))
		default:
			data.Write(make([]byte, 6))
		}
	}
	extra := dict(self)
	if !strings.Contains(extra, "/Size") {
		extra += fmt.Sprintf(" /Size %d", len(rows))
	}
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /XRef /W [1 4 2] %s /Length %d >>\nstream\n", len(objs)+1, extra, data.Len())
	b.Write(data.Bytes())
	fmt.Fprintf(&b, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", self)
	return b.Bytes()
}

// deflateBomb returns raw DEFLATE data that expands to at least n bytes
// of unit repeated, made by compressing one chunk of about 1 MiB (whole
// units) and repeating its compressed block (a few KiB per 64 MiB), with
// the size and CRC-32 of what it expands to.
func deflateBomb(unit string, n int64) (data []byte, size int64, crc uint32) {
	return deflateBombIn("", unit, "", n)
}

// deflateBombIn is deflateBomb between a head and a tail (a document's
// opening and closing tags), so that the bomb is a well-formed file.
func deflateBombIn(head, unit, tail string, n int64) (data []byte, size int64, crc uint32) {
	const chunk = 1 << 20
	block := []byte(strings.Repeat(unit, max(1, chunk/len(unit))))
	var out, buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, flate.BestCompression)
	_, _ = w.Write([]byte(head))
	_, _ = w.Write(block)
	_ = w.Flush()
	out.Write(buf.Bytes())
	buf.Reset()
	_, _ = w.Write(block)
	_ = w.Flush()
	again := append([]byte(nil), buf.Bytes()...)
	size = int64(len(head) + len(block))
	crc = crc32.Update(crc32.Update(0, crc32.IEEETable, []byte(head)), crc32.IEEETable, block)
	for size < n {
		// Each repetition follows a whole block, as again did when it
		// was made: the same 32 KiB window, so the same back-references.
		out.Write(again)
		size += int64(len(block))
		crc = crc32.Update(crc, crc32.IEEETable, block)
	}
	buf.Reset()
	_, _ = w.Write([]byte(tail))
	_ = w.Close()
	out.Write(buf.Bytes())
	return out.Bytes(), size + int64(len(tail)), crc32.Update(crc, crc32.IEEETable, []byte(tail))
}

// zlibBomb wraps deflateBomb in a zlib header. Its checksum is zero:
// computing the real one costs as much as expanding the bomb, and a
// bounded reader stops long before it would check it.
func zlibBomb(unit string, n int64) []byte {
	data, _, _ := deflateBomb(unit, n)
	return append(append([]byte{0x78, 0xda}, data...), 0, 0, 0, 0)
}

// zent is one member of a hand-made zip: name, its stored bytes (raw
// DEFLATE when deflated), CRC-32 and uncompressed size as the headers say,
// and share: -1 to write its own local record, k to point at member k's
// record (overlapping members).
type zent struct {
	name    string
	data    []byte
	deflate bool
	crc     uint32
	size    uint32
	share   int
}

// member returns a stored (or, with deflate, compressed) zip member with
// honest headers.
func member(name, content string, deflate bool) zent {
	e := zent{name: name, crc: crc32.ChecksumIEEE([]byte(content)), size: uint32(len(content)), share: -1, deflate: deflate}
	if !deflate {
		e.data = []byte(content)
		return e
	}
	var b bytes.Buffer
	w, _ := flate.NewWriter(&b, flate.BestCompression)
	_, _ = w.Write([]byte(content))
	_ = w.Close()
	e.data = b.Bytes()
	return e
}

// bombMember is a deflated member that expands to about size bytes of
// unit, with honest headers.
func bombMember(name, unit string, size int64) zent {
	return bombDoc(name, "", unit, "", size)
}

// bombDoc is bombMember between a head and a tail.
func bombDoc(name, head, unit, tail string, size int64) zent {
	data, n, crc := deflateBombIn(head, unit, tail, size)
	return zent{name: name, data: data, deflate: true, crc: crc, size: uint32(min(n, 1<<32-1)), share: -1}
}

// zipFile writes the members as a zip archive: local records, central
// directory, end record. It allows what archive/zip's writer refuses:
// repeated names and members sharing one local record.
func zipFile(ents []zent) []byte {
	var b bytes.Buffer
	le := func(vs ...any) {
		for _, v := range vs {
			_ = binary.Write(&b, binary.LittleEndian, v)
		}
	}
	offs := make([]int, len(ents))
	for i, e := range ents {
		if e.share >= 0 {
			offs[i] = offs[e.share]
			continue
		}
		offs[i] = b.Len()
		// signature, version, flags, method, time and date, CRC, sizes,
		// name length, extra length
		le(uint32(0x04034b50), uint16(20), uint16(0), zipMethod(e), uint32(0), e.crc, uint32(len(e.data)), e.size, uint16(len(e.name)), uint16(0))
		b.WriteString(e.name)
		b.Write(e.data)
	}
	cd := b.Len()
	for i, e := range ents {
		src := e
		if e.share >= 0 {
			src = ents[e.share]
		}
		// signature, versions, flags, method, time and date, CRC, sizes,
		// name, extra and comment lengths, disk, attributes, offset
		le(uint32(0x02014b50), uint16(20), uint16(20), uint16(0), zipMethod(src), uint32(0), src.crc, uint32(len(src.data)), src.size,
			uint16(len(e.name)), uint16(0), uint16(0), uint16(0), uint16(0), uint32(0), uint32(offs[i]))
		b.WriteString(e.name)
	}
	end := b.Len()
	le(uint32(0x06054b50), uint16(0), uint16(0), uint16(len(ents)), uint16(len(ents)), uint32(end-cd), uint32(cd), uint16(0))
	return b.Bytes()
}

// zipMethod is a member's compression method: 8 (deflate) or 0 (store).
func zipMethod(e zent) uint16 {
	if e.deflate {
		return 8
	}
	return 0
}

const (
	docxDoc   = `<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t>hello</w:t></w:r></w:p></w:body></w:document>`
	pptxPres  = `<p:presentation xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"/>`
	pptxSlide = `<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main"><p:cSld><p:spTree><p:sp><p:txBody><a:p><a:r><a:t>hi</a:t></a:r></a:p></p:txBody></p:sp></p:spTree></p:cSld></p:sld>`
)

// xlsxParts are the members of a minimal one-sheet workbook; sheet and
// sst (shared strings, optional) replace the sheet's and the table's.
func xlsxParts(sheet, sst zent) []zent {
	ct := `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/sharedStrings.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"/></Types>`
	rels := `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`
	wb := `<?xml version="1.0" encoding="UTF-8"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets></workbook>`
	wbRels := `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`
	parts := []zent{
		member("[Content_Types].xml", ct, false),
		member("_rels/.rels", rels, false),
		member("xl/workbook.xml", wb, false),
		member("xl/_rels/workbook.xml.rels", wbRels, false),
		sheet,
	}
	if sst.name != "" {
		parts = append(parts, sst)
	}
	return parts
}

const (
	sheetHead = `<?xml version="1.0" encoding="UTF-8"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`
	sheetTail = `</sheetData></worksheet>`
	sstHead   = `<?xml version="1.0" encoding="UTF-8"?><sst xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main">`
)

// pngHeader returns a PNG whose header claims w×h pixels of the given bit
// depth and colour type, with one IDAT chunk of data (zlib).
func pngHeader(w, h uint32, depth, color byte, idat []byte) []byte {
	var b bytes.Buffer
	b.WriteString("\x89PNG\r\n\x1a\n")
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		c := crc32.NewIEEE()
		c.Write([]byte(typ))
		c.Write(data)
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, c.Sum32())
	}
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], w)
	binary.BigEndian.PutUint32(ihdr[4:], h)
	ihdr[8], ihdr[9] = depth, color
	chunk("IHDR", ihdr)
	chunk("IDAT", idat)
	chunk("IEND", nil)
	return b.Bytes()
}
