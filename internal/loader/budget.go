package loader

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// Limits bound what loading one document may take, whatever its format:
// a file that would pass one is refused with a *LimitError naming the
// limit. Load makes one budget of them for each document and every
// loader (and the libraries under it: the PDF reader, the
// image decoders) draws on it. Zero fields take the defaults.
type Limits struct {
	// Time is the longest one load may take [DefaultTime].
	Time time.Duration
	// Bytes caps what a document expands to, in bytes: decompressed PDF
	// streams, the zip members read from a DOCX, XLSX or PPTX file
	// [DefaultExpandBytes].
	Bytes int64
	// Work caps the units of parsing work: PDF objects read,
	// cross-reference entries, page-tree nodes, content operators and text
	// runs; zip members (16 units each); XML elements; table rows and
	// cells; the JSON values of a notebook [DefaultWork].
	Work int64
	// Pixels caps one decoded image: Pixels pixels, and 4×Pixels bytes of
	// decoded image (so 16-bit colour, 8 bytes a pixel, gets half as many
	// pixels) [DefaultPixels].
	Pixels int64
	// Depth caps nesting: PDF objects read within the reading of another
	// (object streams), page-tree levels and /Parent chains
	// [DefaultDepth].
	Depth int
}

// The default Limits. A document that passes one is hostile or too big
// to read whole: 64 MiB is twice DefaultMaxBytes, 4 million units of work
// take about a second, and no real page tree or object nests 64 deep.
const (
	DefaultTime        = 10 * time.Second
	DefaultExpandBytes = 64 << 20
	DefaultWork        = 4_000_000
	DefaultPixels      = 64 << 20
	DefaultDepth       = 64
)

func (l Limits) withDefaults() Limits {
	if l.Time <= 0 {
		l.Time = DefaultTime
	}
	if l.Bytes <= 0 {
		l.Bytes = DefaultExpandBytes
	}
	if l.Work <= 0 {
		l.Work = DefaultWork
	}
	if l.Pixels <= 0 {
		l.Pixels = DefaultPixels
	}
	if l.Depth <= 0 {
		l.Depth = DefaultDepth
	}
	return l
}

// ErrLimit is wrapped by every *LimitError: errors.Is(err, ErrLimit)
// tells a document refused for its cost from a malformed one.
var ErrLimit = errors.New("document limit")

// LimitError is a document passing one of its Limits.
type LimitError struct {
	// Limit is the Limits field passed: "Time", "Bytes", "Work", "Pixels"
	// or "Depth".
	Limit string
	// Max is the limit's value (nanoseconds for Time).
	Max int64
	// What names the part of the document that passed it: "page 3",
	// "xl/worksheets/sheet1.xml", "cell 12".
	What string
	// Detail, when set, replaces the generic sentence after What.
	Detail string
}

// Error names the part, the limit and its value, e.g.
// "xl/worksheets/sheet1.xml expands past the 64.0 MiB document limit".
func (e *LimitError) Error() string {
	what := e.What
	if what == "" {
		what = "the document"
	}
	if e.Detail != "" {
		return what + " " + e.Detail
	}
	switch e.Limit {
	case "Time":
		return fmt.Sprintf("%s: loading passed the %s document time limit", what, time.Duration(e.Max))
	case "Bytes":
		return fmt.Sprintf("%s expands past the %s document limit (a decompression bomb, or too big to read whole)", what, HumanSize(e.Max))
	case "Work":
		return fmt.Sprintf("%s: past the document limit of %d units of work (objects, entries, operators, rows, cells, values)", what, e.Max)
	case "Depth":
		return fmt.Sprintf("%s nests deeper than the %d-level document limit", what, e.Max)
	}
	return fmt.Sprintf("%s passes the document limit %s = %d", what, e.Limit, e.Max)
}

// Is makes errors.Is(err, ErrLimit) true.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// budget is one document's account against its Limits. The first limit
// passed is kept (err) and every later charge fails with it, so that a
// library that swallows an error cannot go on. It is not safe for
// concurrent use: a load runs on one goroutine.
type budget struct {
	ctx    context.Context
	parent context.Context
	lim    Limits
	bytes  int64
	work   int64
	tick   int64 // work at which the clock is read next
	err    error
	// at names the part being read, for errors raised by a metered
	// library (which does not know it): "page 3".
	at string
}

// newBudget starts the account of one load; cancel releases its timer.
func newBudget(ctx context.Context, lim Limits) (*budget, context.CancelFunc) {
	lim = lim.withDefaults()
	tctx, cancel := context.WithTimeout(ctx, lim.Time)
	return &budget{ctx: tctx, parent: ctx, lim: lim}, cancel
}

// fail keeps the first error and returns it.
func (b *budget) fail(err error) error {
	if b.err == nil {
		b.err = err
	}
	return b.err
}

func (b *budget) name(what string) string {
	if what == "" {
		return b.at
	}
	return what
}

// check returns the budget's error, or an error once the load's time is
// up or its context is done.
func (b *budget) check(what string) error {
	if b.err != nil {
		return b.err
	}
	if err := b.ctx.Err(); err != nil {
		if b.parent.Err() != nil {
			return b.fail(fmt.Errorf("load cancelled: %w", b.parent.Err()))
		}
		return b.fail(&LimitError{Limit: "Time", Max: int64(b.lim.Time), What: b.name(what)})
	}
	return nil
}

// charge adds n units of work for what; the clock is read every 4096
// units.
func (b *budget) charge(n int64, what string) error {
	if b.err != nil {
		return b.err
	}
	b.work += n
	if n < 0 || b.work > b.lim.Work || b.work < 0 {
		return b.fail(&LimitError{Limit: "Work", Max: b.lim.Work, What: b.name(what)})
	}
	if b.work >= b.tick {
		b.tick = b.work + 4096
		return b.check(what)
	}
	return nil
}

// expand adds n bytes that what expands to.
func (b *budget) expand(n int64, what string) error {
	if b.err != nil {
		return b.err
	}
	b.bytes += n
	if n < 0 || b.bytes > b.lim.Bytes || b.bytes < 0 {
		return b.fail(&LimitError{Limit: "Bytes", Max: b.lim.Bytes, What: b.name(what)})
	}
	return b.check(what)
}

// room is how many more bytes the document may expand to.
func (b *budget) room() int64 { return max(0, b.lim.Bytes-b.bytes) }

// image checks a w×h image that decodes to bpp bytes a pixel against
// Limits.Pixels before any pixel is decoded. The limit is per image: an
// image refused does not fail the rest of a document (a notebook goes on
// without that output).
func (b *budget) image(w, h int, bpp int64, what string) error {
	if b.err != nil {
		return b.err
	}
	px := int64(w) * int64(h)
	if w <= 0 || h <= 0 || px > b.lim.Pixels || px*bpp > 4*b.lim.Pixels {
		return (&LimitError{Limit: "Pixels", Max: b.lim.Pixels, What: what, Detail: fmt.Sprintf(
			"is %d×%d pixels, %s decoded: past the image limit of %d megapixels (%s decoded)",
			w, h, HumanSize(px*bpp), b.lim.Pixels>>20, HumanSize(4*b.lim.Pixels))})
	}
	return b.check(what)
}

// deeper fails when depth passes Limits.Depth.
func (b *budget) deeper(depth int, what string) error {
	if depth > b.lim.Depth {
		return b.fail(&LimitError{Limit: "Depth", Max: int64(b.lim.Depth), What: b.name(what)})
	}
	return b.check(what)
}

// reader returns r charging every byte read to what; once a limit is
// passed it reads the budget's error.
func (b *budget) reader(r io.Reader, what string) io.Reader {
	return &meteredReader{r: r, b: b, what: what}
}

type meteredReader struct {
	r    io.Reader
	b    *budget
	what string
}

func (m *meteredReader) Read(p []byte) (int, error) {
	if err := m.b.check(m.what); err != nil {
		return 0, err
	}
	// Never read past the budget: a bomb stops at the limit, not a
	// buffer after it.
	if room := m.b.room(); int64(len(p)) > room+1 {
		p = p[:room+1]
	}
	n, err := m.r.Read(p)
	if cerr := m.b.expand(int64(n), m.what); cerr != nil {
		return n, cerr
	}
	return n, err
}

// run calls load under the budget: a panic (a library's, or a
// *LimitError a metered library raised) becomes an error, and the first
// limit passed wins over whatever a library made of it.
func (b *budget) run(kind Kind, load func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && errors.Is(e, ErrLimit) {
				err = e
			} else {
				err = fmt.Errorf("malformed %s: %v", kind, r)
			}
		}
		if b.err != nil {
			err = b.err
		}
	}()
	if err := b.check(""); err != nil {
		return err
	}
	if err := load(); err != nil {
		if cerr := b.check(""); cerr != nil {
			return cerr // a library gave up because the time was up
		}
		return err
	}
	return nil
}
