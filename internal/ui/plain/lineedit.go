package plain

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/charmbracelet/x/term"
	"github.com/muesli/cancelreader"
	xterm "golang.org/x/term"

	"github.com/zelvior/aidex/internal/ui/commands"
)

// Line editing: when both input and output are a terminal, the idle
// prompt is read by a line editor (golang.org/x/term's Terminal) with the
// terminal in raw mode: Tab completes slash commands, the arrows move in
// the line and through the history. Raw mode lasts only while the prompt
// line is read; before a command or a run the terminal is back in cooked
// mode, so approvals, type-ahead and Ctrl+C (SIGINT) work as without the
// editor. Input that is not a terminal is read as before.
//
// One reader owns the input at a time: the editor at the idle prompt, the
// line reader (readLines) otherwise. The line reader reads through a
// cancelreader, so the idle prompt can stop it; a line it had read but
// not delivered is kept (held) and run as if typed at the prompt.

// errCtrlC is the editor's read error for Ctrl+C (byte 3 in raw mode).
var errCtrlC = errors.New("ctrl+c")

// lineEditor is the idle prompt's editor on a terminal.
type lineEditor struct {
	in      *os.File
	out     io.Writer
	history xterm.History // kept across prompts; nil until the first

	mu      sync.Mutex
	stdin   io.Reader // what the shared bufio.Reader reads now
	cr      cancelreader.CancelReader
	lines   chan lineOrErr
	stop    chan struct{}
	done    chan struct{}
	held    []lineOrErr // lines read by a stopped line reader
	partial string      // an unfinished line a stopped reader had read
}

// newLineEditor returns the editor for in and out, or nil when either is
// not a terminal or reads on in cannot be canceled on this system.
func newLineEditor(in io.Reader, out io.Writer) *lineEditor {
	f, ok := in.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) || !isTerminal(out) {
		return nil
	}
	cr, err := cancelreader.NewReader(f)
	if err != nil {
		return nil
	}
	canceled := cr.Cancel()
	_ = cr.Close()
	if !canceled {
		return nil
	}
	return &lineEditor{in: f, out: out}
}

// Read reads for the shared bufio.Reader from the current source.
func (e *lineEditor) Read(p []byte) (int, error) {
	e.mu.Lock()
	src := e.stdin
	e.mu.Unlock()
	if src == nil {
		return 0, cancelreader.ErrCanceled
	}
	return src.Read(p)
}

// setSource makes the shared bufio.Reader read from src.
func (e *lineEditor) setSource(src io.Reader) {
	e.mu.Lock()
	e.stdin = src
	e.mu.Unlock()
}

// startLines starts the line reader on in (the shared bufio.Reader) and
// returns its lines; a running reader's channel is returned as is.
func (e *lineEditor) startLines(in interface {
	ReadString(byte) (string, error)
}) <-chan lineOrErr {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.lines != nil {
		return e.lines
	}
	cr, err := cancelreader.NewReader(e.in)
	if err != nil {
		ch := make(chan lineOrErr, 1)
		ch <- lineOrErr{err: fmt.Errorf("read the terminal: %w", err)}
		close(ch)
		return ch
	}
	e.cr, e.stdin = cr, cr
	e.lines, e.stop, e.done = make(chan lineOrErr), make(chan struct{}), make(chan struct{})
	lines, stop, done := e.lines, e.stop, e.done
	go func() {
		defer close(done)
		for {
			line, err := in.ReadString('\n')
			if errors.Is(err, cancelreader.ErrCanceled) {
				e.mu.Lock()
				e.partial += line
				e.mu.Unlock()
				return
			}
			var items []lineOrErr
			if line != "" || err == nil {
				items = append(items, lineOrErr{line: line})
			}
			if err != nil && !errors.Is(err, io.EOF) {
				items = append(items, lineOrErr{err: err})
			}
			for _, it := range items {
				select {
				case lines <- it:
				case <-stop:
					e.mu.Lock()
					e.held = append(e.held, it)
					e.mu.Unlock()
					return
				}
			}
			if err != nil {
				close(lines)
				return
			}
		}
	}()
	return lines
}

// stopLines stops the line reader, if one runs, and waits for it to end.
func (e *lineEditor) stopLines() {
	e.mu.Lock()
	if e.lines == nil {
		e.mu.Unlock()
		return
	}
	cr, stop, done := e.cr, e.stop, e.done
	e.lines, e.cr, e.stdin = nil, nil, nil
	e.mu.Unlock()
	close(stop)
	cr.Cancel()
	<-done
	_ = cr.Close()
}

// takeHeld returns a line a stopped reader had read, if any.
func (e *lineEditor) takeHeld() (lineOrErr, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.held) == 0 {
		return lineOrErr{}, false
	}
	l := e.held[0]
	e.held = e.held[1:]
	return l, true
}

// readPrompt reads one line with the editor, the terminal in raw mode
// while it reads. It returns errCtrlC for Ctrl+C, io.EOF for Ctrl+D on an
// empty line, and ctx's error when ctx ends.
func (e *lineEditor) readPrompt(ctx context.Context, in io.Reader, prompt string, table commands.Table) (string, error) {
	e.stopLines()
	cr, err := cancelreader.NewReader(e.in)
	if err != nil {
		return "", fmt.Errorf("read the terminal: %w", err)
	}
	defer cr.Close()
	e.setSource(cr)
	defer e.setSource(nil)
	state, err := term.MakeRaw(e.in.Fd())
	if err != nil {
		return "", fmt.Errorf("put the terminal in raw mode: %w", err)
	}
	defer func() { _ = term.Restore(e.in.Fd(), state) }()
	stopWatch := context.AfterFunc(ctx, func() { cr.Cancel() })
	defer stopWatch()

	e.mu.Lock()
	partial := e.partial
	e.partial = ""
	e.mu.Unlock()
	keys := &ctrlCReader{r: io.MultiReader(strings.NewReader(partial), in)}
	t := xterm.NewTerminal(struct {
		io.Reader
		io.Writer
	}{keys, e.out}, prompt)
	if e.history == nil {
		e.history = t.History
	}
	t.History = e.history
	if w, h, err := term.GetSize(e.in.Fd()); err == nil {
		_ = t.SetSize(w, h)
	}
	t.AutoCompleteCallback = func(line string, pos int, key rune) (string, int, bool) {
		if key != '\t' {
			return "", 0, false
		}
		newLine, newPos, matches := completeSlash(table, line, pos)
		if len(matches) > 1 {
			var b strings.Builder
			for _, s := range matches {
				fmt.Fprintf(&b, "  %-16s %s\n", strings.TrimSpace(s.Name+" "+s.Args), s.Help)
			}
			_, _ = t.Write([]byte(b.String()))
		}
		return newLine, newPos, true
	}
	line, err := t.ReadLine()
	switch {
	case keys.ctrlC:
		return "", errCtrlC
	case ctx.Err() != nil:
		return "", ctx.Err()
	case errors.Is(err, xterm.ErrPasteIndicator):
		return line, nil
	}
	return line, err
}

// ctrlCReader passes keys on up to a Ctrl+C (byte 3), which it notes and
// after which it reads nothing more: the Terminal then ends the line.
type ctrlCReader struct {
	r     io.Reader
	ctrlC bool
}

func (c *ctrlCReader) Read(p []byte) (int, error) {
	if c.ctrlC {
		return 0, errCtrlC
	}
	n, err := c.r.Read(p)
	if i := bytes.IndexByte(p[:n], 3); i >= 0 {
		c.ctrlC = true
		return i + 1, nil
	}
	return n, err
}

// completeSlash completes the slash command before the cursor: line
// holds the whole input and pos the cursor (a byte offset). With one
// command starting with the typed word, the word becomes its name and a
// space; with several, the word grows to their longest common prefix and
// matches lists them (in table order, an exact match first). Input that
// is not a slash command's name (a space before the cursor, no leading
// "/") is returned as is, with no matches.
func completeSlash(table commands.Table, line string, pos int) (newLine string, newPos int, matches []commands.Spec) {
	word := line[:pos]
	if !strings.HasPrefix(word, "/") || strings.ContainsAny(word, " \t\n") {
		return line, pos, nil
	}
	matches = table.Complete(word)
	if len(matches) == 0 {
		return line, pos, nil
	}
	rest := line[pos:]
	if len(matches) == 1 {
		name := matches[0].Name
		if !strings.HasPrefix(rest, " ") {
			name += " "
		}
		return name + rest, len(name), matches
	}
	common := matches[0].Name
	for _, s := range matches[1:] {
		for !strings.HasPrefix(s.Name, common) {
			common = common[:len(common)-1]
		}
	}
	if len(common) < len(word) {
		common = word
	}
	return common + rest, len(common), matches
}
