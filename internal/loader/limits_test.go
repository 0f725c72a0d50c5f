package loader_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/loader"
	"github.com/zelvior/aidex/internal/loader/loadertest"
)

// sample is an ordinary document of one format, and whether loading it
// expands bytes (decompression) and decodes pixels.
type sample struct {
	name    string
	data    func(t *testing.T) []byte
	expands bool
	pixels  bool
	works   bool // draws units of work
}

func samples() []sample {
	return []sample{
		{name: "a.pdf", data: func(t *testing.T) []byte { return loadertest.PDF(t, 2) }, expands: true, works: true},
		{name: "a.docx", data: func(t *testing.T) []byte { return loadertest.DOCX(t, "H", "p") }, expands: true, works: true},
		{name: "a.xlsx", data: func(t *testing.T) []byte { return loadertest.XLSX(t) }, expands: true, works: true},
		{name: "a.pptx", data: func(t *testing.T) []byte { return loadertest.PPTX(t, "a", "b") }, expands: true, works: true},
		{name: "a.ipynb", data: func(t *testing.T) []byte { return loadertest.Notebook(t) }, works: true},
		{name: "a.csv", data: func(*testing.T) []byte { return []byte("a,b\n1,2\n") }, works: true},
		{name: "a.png", data: func(t *testing.T) []byte { return loadertest.PNG(t, 40, 30) }, pixels: true},
		{name: "a.html", data: func(*testing.T) []byte { return []byte("<html><body><p>hi</p></body></html>") }},
		{name: "a.txt", data: func(*testing.T) []byte { return []byte("plain text\n") }},
	}
}

// TestEveryLoaderDrawsOnTheBudget proves, format by format, that each
// limit of loader.Limits reaches the loader: an ordinary document passes
// the defaults and is refused, with a *LimitError naming the limit, when
// the limit it draws on is set to its smallest value.
func TestEveryLoaderDrawsOnTheBudget(t *testing.T) {
	ctx := context.Background()
	for _, s := range samples() {
		t.Run(s.name, func(t *testing.T) {
			data := s.data(t)
			if _, err := loader.Load(ctx, s.name, data, loader.Options{}); err != nil {
				t.Fatalf("default limits: %v", err)
			}
			cases := []struct {
				limit string
				lim   loader.Limits
				draws bool
			}{
				{"Time", loader.Limits{Time: time.Nanosecond}, true},
				{"Work", loader.Limits{Work: 1}, s.works},
				{"Bytes", loader.Limits{Bytes: 1}, s.expands},
				{"Pixels", loader.Limits{Pixels: 1}, s.pixels},
			}
			for _, c := range cases {
				_, err := loader.Load(ctx, s.name, data, loader.Options{Limits: c.lim})
				var le *loader.LimitError
				switch {
				case !c.draws && err != nil:
					t.Errorf("%s at its smallest: %v; this format does not draw on it", c.limit, err)
				case c.draws && !errors.As(err, &le):
					t.Errorf("%s at its smallest: err %v, want a *LimitError", c.limit, err)
				case c.draws && (le.Limit != c.limit || !errors.Is(err, loader.ErrLimit)):
					t.Errorf("%s at its smallest: %v names limit %q", c.limit, err, le.Limit)
				}
			}
		})
	}
}

func TestCancelledContextIsNotATimeLimit(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := loader.Load(ctx, "a.txt", []byte("x"), loader.Options{})
	if !errors.Is(err, context.Canceled) || errors.Is(err, loader.ErrLimit) {
		t.Errorf("err %v, want context.Canceled and not ErrLimit", err)
	}
}

func TestLimitErrorsNameTheLimit(t *testing.T) {
	for _, c := range []struct {
		err  loader.LimitError
		want string
	}{
		{loader.LimitError{Limit: "Bytes", Max: 64 << 20, What: "xl/worksheets/sheet1.xml"}, "xl/worksheets/sheet1.xml expands past the 64.0 MiB document limit"},
		{loader.LimitError{Limit: "Work", Max: 4_000_000, What: "page 3"}, "page 3: past the document limit of 4000000 units of work"},
		{loader.LimitError{Limit: "Time", Max: int64(10 * time.Second), What: "page 3"}, "page 3: loading passed the 10s document time limit"},
		{loader.LimitError{Limit: "Depth", Max: 64, What: "the page tree"}, "the page tree nests deeper than the 64-level document limit"},
	} {
		if got := c.err.Error(); !strings.HasPrefix(got, c.want) {
			t.Errorf("%+v: %q, want it to start %q", c.err, got, c.want)
		}
	}
}

// TestDeepPDFNestingIsALimit reads a page tree 100 levels deep: past
// Limits.Depth, refused by name.
func TestDeepPDFNestingIsALimit(t *testing.T) {
	nodes := []string{}
	for i := 2; i < 102; i++ {
		nodes = append(nodes, "<< /Type /Pages /Kids ["+strconv.Itoa(i+1)+" 0 R] /Count 1 >>")
	}
	nodes = append(nodes, "<< /Type /Page >>")
	_, err := loader.Load(context.Background(), "deep.pdf", pdfPageTree(nodes...), loader.Options{})
	var le *loader.LimitError
	if !errors.As(err, &le) || le.Limit != "Depth" || !strings.Contains(err.Error(), "the page tree nests deeper than the 64-level document limit") {
		t.Errorf("err %v, want the Depth limit naming the page tree", err)
	}
}

// TestProgressiveJPEGCountsItsCoefficients: a progressive JPEG of
// 8000×8000 passes the pixel limit but image/jpeg would hold 15 bytes a
// pixel (960 MB) while decoding it; a baseline one of the same size is
// within the limit and fails only for its missing data.
func TestProgressiveJPEGCountsItsCoefficients(t *testing.T) {
	jpeg := func(sof byte) []byte {
		b := []byte{0xff, 0xd8, 0xff, 0xe0, 0, 16, 'J', 'F', 'I', 'F', 0, 1, 1, 0, 0, 1, 0, 1, 0, 0} // JFIF
		b = append(b, 0xff, sof, 0, 17, 8, 8000>>8, 8000&0xff, 8000>>8, 8000&0xff, 3)
		for c := byte(1); c <= 3; c++ {
			b = append(b, c, 0x11, 0)
		}
		return append(b, 0xff, 0xd9)
	}
	_, err := loader.Load(context.Background(), "p.jpg", jpeg(0xc2), loader.Options{})
	var le *loader.LimitError
	if !errors.As(err, &le) || le.Limit != "Pixels" || !strings.Contains(err.Error(), "8000×8000 pixels, 915.5 MiB decoded") {
		t.Errorf("progressive: err %v, want the Pixels limit at 15 bytes a pixel", err)
	}
	_, err = loader.Load(context.Background(), "b.jpg", jpeg(0xc0), loader.Options{})
	if err == nil || errors.Is(err, loader.ErrLimit) {
		t.Errorf("baseline: err %v, want a decoding error, not a limit", err)
	}
}
