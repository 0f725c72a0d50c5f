package loader_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/loader"
)

// hostileCase is one crafted file and what loading it must give: an error
// containing every want substring, or (want empty) a document whose text
// and notes contain every note substring.
//
// Cases load with the default limits, but for Time (see runChild) and
// where lim says otherwise: the heaviest cases pass a tenth of a limit,
// which refuses them by the same check at a tenth of the cost (the race
// detector makes parsing 5 to 10 times slower). BenchmarkHostile loads
// every case with the defaults.
type hostileCase struct {
	name string
	file string // the name passed to Load: it picks text formats
	gen  func() []byte
	lim  loader.Limits
	want []string
	note []string
}

// tenth is a tenth of the default limits of bytes and work.
var tenth = loader.Limits{Bytes: loader.DefaultExpandBytes / 10, Work: loader.DefaultWork / 10}

// pdfPageTree is a PDF whose catalog (1) names page tree node 2; nodes
// are objects 2.. as given.
func pdfPageTree(nodes ...string) []byte {
	return pdfFile(append([]string{"<< /Type /Catalog /Pages 2 0 R >>"}, nodes...), rootIs)
}

const textPage = `<< /Length 44 >>
stream
BT /F1 12 Tf 72 712 Td (hello page) Tj ET
endstream`

// hostileCases lists every class of issue 43 part 2 with a generator.
var hostileCases = []hostileCase{
	// PDF: cycles in the page tree, the object graph and the xref chain.
	{name: "pdf/kids-cycle", file: "a.pdf", gen: func() []byte {
		return pdfPageTree(
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Pages /Parent 2 0 R /Kids [2 0 R] /Count 1 >>")
	}, want: []string{"page tree has a cycle at object 2 0 R"}},
	{name: "pdf/kids-self", file: "a.pdf", gen: func() []byte {
		return pdfPageTree("<< /Type /Pages /Kids [2 0 R] /Count 5 >>")
	}, want: []string{"page tree has a cycle at object 2 0 R"}},
	{name: "pdf/parent-cycle", file: "a.pdf", gen: func() []byte {
		return pdfPageTree(
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 4 0 R /Contents 5 0 R >>",
			"<< /Type /Pages /Parent 3 0 R >>",
			textPage)
	}, want: []string{"/Parent chain has a cycle at object 3 0 R"}},
	{name: "pdf/count-lies", file: "a.pdf", gen: func() []byte {
		return pdfPageTree(
			"<< /Type /Pages /Kids [3 0 R] /Count 2000000000 >>",
			"<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
			textPage)
	}, note: []string{"--- page 1 of 1 ---", "hello page"}},
	{name: "pdf/xref-prev-loop", file: "a.pdf", gen: func() []byte {
		return pdfFile(onePage("BT ET"), func(xref int) string { return fmt.Sprintf("/Root 1 0 R /Prev %d", xref) })
	}, want: []string{"/Prev chain has a cycle at offset"}},
	{name: "pdf/xref-stream-prev-loop", file: "a.pdf", gen: func() []byte {
		return pdfXrefStream(onePage("BT ET"), direct, func(self int) string { return fmt.Sprintf("/Root 1 0 R /Prev %d", self) })
	}, want: []string{"/Prev chain has a cycle at offset"}},
	{name: "pdf/object-stream-in-itself", file: "a.pdf", gen: func() []byte {
		// Object 1 (the catalog) lives in object stream 1: itself.
		return pdfXrefStream(onePage("BT ET"), func(offs []int) []xrefEntry {
			e := direct(offs)
			e[1] = xrefEntry{typ: 2, strm: 1}
			return e
		}, func(int) string { return "/Root 1 0 R" })
	}, want: []string{"object stream 1 0 R"}},
	{name: "pdf/object-stream-refers-to-itself", file: "a.pdf", gen: func() []byte {
		// Object stream 5 takes its /N from object 6, which lives in it.
		objs := append(onePage("BT ET"),
			"<< /Type /ObjStm /N 6 0 R /First 4 /Length 8 >>\nstream\n6 0 42 \nendstream",
			"null")
		return pdfXrefStream(objs, func(offs []int) []xrefEntry {
			e := direct(offs)
			e[1] = xrefEntry{typ: 2, strm: 5}
			e[6] = xrefEntry{typ: 2, strm: 5}
			return e
		}, func(int) string { return "/Root 1 0 R" })
	}, want: []string{"refers to itself"}},
	{name: "pdf/xref-size-4-billion", file: "a.pdf", gen: func() []byte {
		return pdfXrefStream(onePage("BT ET"), direct, func(int) string { return "/Root 1 0 R /Size 4000000000" })
	}, want: []string{"units of work"}},
	{name: "pdf/xref-subsection-at-4-billion", file: "a.pdf", gen: func() []byte {
		data := pdfFile(onePage("BT ET"), rootIs)
		return bytes.Replace(data, []byte("xref\n0 5\n"), []byte("xref\n4000000000 1\n0000000009 00000 n \n0 5\n"), 1)
	}, want: []string{"units of work"}},
	{name: "pdf/flate-bomb-spaces", file: "a.pdf", gen: func() []byte {
		return pdfFlate(zlibBomb(" ", 1<<30))
	}, lim: tenth, want: []string{"expands past the 6.4 MiB document limit"}},
	{name: "pdf/flate-bomb-text", file: "a.pdf", gen: func() []byte {
		return pdfFlate(zlibBomb("(a)Tj\n", 1<<30))
	}, lim: tenth, want: []string{"document limit"}},

	// Zip archives: repeated names, overlapping members, expansion.
	{name: "docx/duplicate-names", file: "a.docx", gen: func() []byte {
		return zipFile([]zent{member("word/document.xml", docxDoc, false), member("word/document.xml", strings.Replace(docxDoc, "hello", "other", 1), false)})
	}, want: []string{"two members named word/document.xml"}},
	{name: "pptx/overlapping-members", file: "a.pptx", gen: func() []byte {
		ents := []zent{member("ppt/presentation.xml", pptxPres, false), bombMember("ppt/slides/slide1.xml", pptxSlide, 60<<20)}
		for i := 2; i <= 300; i++ {
			e := ents[1]
			e.name, e.share = fmt.Sprintf("ppt/slides/slide%d.xml", i), 1
			ents = append(ents, e)
		}
		return zipFile(ents)
	}, want: []string{"overlap"}},
	{name: "docx/40k-members", file: "a.docx", gen: func() []byte {
		ents := []zent{member("word/document.xml", docxDoc, false)}
		for i := range 40_000 {
			ents = append(ents, member(strconv.Itoa(i), "", false))
		}
		return zipFile(ents)
	}, lim: tenth, want: []string{"the zip directory: past the document limit of 400000 units of work"}},
	{name: "pptx/expansion", file: "a.pptx", gen: func() []byte {
		// Slides without text (which would fill the text cap first), each
		// with its own copy of the same compressed bytes.
		slide := bombMember("", "<sp>"+strings.Repeat(" ", 1000)+"</sp>", 1<<20)
		ents := []zent{member("ppt/presentation.xml", pptxPres, false)}
		for i := 1; i <= 40; i++ {
			e := slide
			e.name = fmt.Sprintf("ppt/slides/slide%d.xml", i)
			ents = append(ents, e)
		}
		return zipFile(ents)
	}, lim: tenth, want: []string{"expands past the 6.4 MiB document limit"}},
	{name: "docx/expansion", file: "a.docx", gen: func() []byte {
		return zipFile([]zent{bombMember("word/document.xml", "<w:p/>", 1<<30)})
	}, want: []string{"word/document.xml expands past the 64.0 MiB document limit"}},
	{name: "xlsx/sheet-expansion", file: "a.xlsx", gen: func() []byte {
		return zipFile(xlsxParts(bombDoc("xl/worksheets/sheet1.xml", sheetHead, `<row><c t="inlineStr"><is><t>x</t></is></c></row>`, sheetTail, 200<<20), zent{}))
	}, want: []string{"xl/worksheets/sheet1.xml expands past the 64.0 MiB document limit"}},
	{name: "xlsx/shared-strings-expansion", file: "a.xlsx", gen: func() []byte {
		sheet := member("xl/worksheets/sheet1.xml", sheetHead+`<row r="1"><c r="A1" t="s"><v>0</v></c></row>`+sheetTail, true)
		return zipFile(xlsxParts(sheet, bombDoc("xl/sharedStrings.xml", sstHead, "<si><t>x</t></si>", "</sst>", 200<<20)))
	}, want: []string{"xl/sharedStrings.xml expands past the 64.0 MiB document limit"}},
	{name: "xlsx/shared-strings-60MiB", file: "a.xlsx", gen: func() []byte {
		// Within the Bytes limit, 3.5 million shared strings, which
		// a reader keeping them as structs would decode into 1.4 GiB.
		sheet := member("xl/worksheets/sheet1.xml", sheetHead+`<row r="1"><c r="A1" t="s"><v>0</v></c></row>`+sheetTail, true)
		return zipFile(xlsxParts(sheet, bombDoc("xl/sharedStrings.xml", sstHead, "<si><t>x</t></si>", "</sst>", 60<<20)))
	}, want: []string{"xl/sharedStrings.xml: past the document limit of 4000000 units of work"}},
	{name: "xlsx/sparse-cells", file: "a.xlsx", gen: func() []byte {
		var s strings.Builder
		s.WriteString(sheetHead)
		for r := 1; r <= 5000; r++ {
			fmt.Fprintf(&s, `<row r="%d"><c r="XFD%d" t="inlineStr"><is><t>x</t></is></c></row>`, r, r)
		}
		s.WriteString(sheetTail)
		return zipFile(xlsxParts(member("xl/worksheets/sheet1.xml", s.String(), true), zent{}))
	}, note: []string{"Sheet1: 200 of 5000 rows shown", "text cut"}},

	// Images: pixel counts.
	{name: "png/100k-by-100k", file: "a.png", gen: func() []byte {
		return pngHeader(100000, 100000, 8, 6, zlibBomb("\x00", 1<<20))
	}, want: []string{"100000×100000 pixels", "limit"}},
	{name: "png/16-bit-8k-by-8k", file: "a.png", gen: func() []byte {
		// 8192 rows of a filter byte and 8192 pixels of 8 bytes, made
		// 16 rows at a time.
		rows := strings.Repeat("\x00", 16*(1+8192*8))
		return pngHeader(8192, 8192, 16, 6, zlibBomb(rows, 8192*(1+8192*8)))
	}, want: []string{"8192×8192 pixels", "limit"}},

	// Notebooks: huge outputs.
	{name: "notebook/ten-million-cells", file: "a.ipynb", gen: func() []byte {
		return []byte(`{"cells":[` + strings.Repeat(`{},`, 10_000_000) + `{}]}`)
	}, lim: tenth, want: []string{"units of work"}},
	{name: "notebook/output-of-five-million-lines", file: "a.ipynb", gen: func() []byte {
		out := `{"output_type":"stream","name":"stdout","text":[` + strings.Repeat(`"a\n",`, 5_000_000) + `"end"]}`
		return []byte(`{"cells":[{"cell_type":"code","source":"x","outputs":[` + out + `]}]}`)
	}, lim: tenth, want: []string{"units of work"}},
	{name: "notebook/one-5-MB-output", file: "a.ipynb", gen: func() []byte {
		out := `{"output_type":"stream","name":"stdout","text":"` + strings.Repeat("log line\\n", 500_000) + `"}`
		return []byte(`{"cells":[{"cell_type":"code","source":"train()","outputs":[` + out + `]},{"cell_type":"markdown","source":"after"}]}`)
	}, note: []string{"train()", "log line", "cut"}},

	// Tables: rows.
	{name: "csv/two-million-rows", file: "a.csv", gen: func() []byte {
		return []byte(strings.Repeat("a\n", 2_000_000))
	}, note: []string{"200 of 2000000 rows shown"}},
}

// direct is a cross-reference stream's rows for objects stored directly:
// row 0 free, row i at offs[i].
func direct(offs []int) []xrefEntry {
	e := []xrefEntry{{typ: 0}}
	for _, off := range offs[1:] {
		e = append(e, xrefEntry{typ: 1, off: off})
	}
	return e
}

// pdfFlate is a one-page PDF whose content stream is the given zlib data.
func pdfFlate(z []byte) []byte {
	objs := onePage("")
	objs[3] = fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", len(z), z)
	return pdfFile(objs, rootIs)
}

// childEnv names the case a child process of TestHostileDocuments loads.
const childEnv = "AIDEX_LOADER_HOSTILE_CASE"

// childHeapCeiling is the heap at which a child gives up: far above any
// bounded load, far below what makes the machine swap.
const childHeapCeiling = 1 << 30

// childResult is what a child prints: the load's error or document.
type childResult struct {
	Err   string
	Limit bool
	Text  string
	Notes []string
	Took  string
}

func TestMain(m *testing.M) {
	if name := os.Getenv(childEnv); name != "" {
		os.Exit(runChild(name))
	}
	os.Exit(m.Run())
}

// runChild loads one hostile case and prints a childResult; a heap past
// childHeapCeiling ends it with status 3.
func runChild(name string) int {
	var c *hostileCase
	for i := range hostileCases {
		if hostileCases[i].name == name {
			c = &hostileCases[i]
		}
	}
	if c == nil {
		fmt.Fprintf(os.Stderr, "no case %q\n", name)
		return 2
	}
	go func() {
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > childHeapCeiling {
				fmt.Fprintf(os.Stderr, "heap passed %d MiB\n", ms.HeapAlloc>>20)
				os.Exit(3)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	data := c.gen()
	lim := c.lim
	if lim.Time == 0 {
		// The cases are about the other limits: under the race detector
		// on a busy machine the default 10 s would come first.
		lim.Time = 10 * time.Minute
	}
	start := time.Now()
	doc, err := loader.Load(context.Background(), c.file, data, loader.Options{Limits: lim})
	res := childResult{Took: time.Since(start).String()}
	if err != nil {
		res.Err = err.Error()
		res.Limit = isLimit(err)
	} else {
		res.Text = doc.Text
		res.Notes = doc.Notes
	}
	_ = json.NewEncoder(os.Stdout).Encode(res)
	return 0
}

// childTimeout bounds one child: minutes under the race detector on a
// busy machine for what takes well under a second alone. The old,
// unbounded loaders hang here.
func childTimeout() time.Duration {
	if s, err := strconv.Atoi(os.Getenv("AIDEX_LOADER_HOSTILE_TIMEOUT")); err == nil {
		return time.Duration(s) * time.Second
	}
	return 3 * time.Minute
}

// TestHostileDocuments loads every crafted file in a child process, so
// that a loader that hangs, overflows its stack or runs out of memory is
// a clean failure of its case (timeout, crash, heap ceiling) instead of a
// hung or killed test binary.
func TestHostileDocuments(t *testing.T) {
	for _, c := range hostileCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), childTimeout())
			defer cancel()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"="+c.name)
			var stdout, stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if ctx.Err() != nil {
				t.Fatalf("the load did not end within %s (a hang)", childTimeout())
			}
			if err != nil {
				tail, _, _ := strings.Cut(strings.TrimSpace(stderr.String()), "\n\n")
				if len(tail) > 300 {
					tail = tail[:300]
				}
				t.Fatalf("the child failed (%v): %s", err, tail)
			}
			var res childResult
			if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
				t.Fatalf("child output %q: %v", stdout.String(), err)
			}
			t.Logf("took %s", res.Took)
			if len(c.want) > 0 {
				if res.Err == "" {
					t.Fatalf("loaded without an error; want one containing %q (notes %q)", c.want, res.Notes)
				}
				for _, w := range c.want {
					if !strings.Contains(res.Err, w) {
						t.Errorf("error %q lacks %q", res.Err, w)
					}
				}
				if strings.Contains(strings.Join(c.want, " "), "limit") && !res.Limit {
					t.Errorf("error %q does not wrap loader.ErrLimit", res.Err)
				}
				return
			}
			if res.Err != "" {
				t.Fatalf("error %q, want a document", res.Err)
			}
			all := res.Text + "\n" + strings.Join(res.Notes, "\n")
			for _, n := range c.note {
				if !strings.Contains(all, n) {
					t.Errorf("document lacks %q; notes %q", n, res.Notes)
				}
			}
		})
	}
}

// isLimit reports whether err is a document limit (loader.ErrLimit).
func isLimit(err error) bool { return errors.Is(err, loader.ErrLimit) }
