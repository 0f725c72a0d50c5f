package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/dustin/go-humanize"

	"github.com/zelvior/aidex/internal/app"
	"github.com/zelvior/aidex/internal/config"
)

// bytesPerToken is how many bytes of text a token stands for when the
// input cap is set by the context window (as the engine estimates).
const bytesPerToken = 4

// inputCap is the most bytes of piped stdin or -f a headless run reads:
// max_input_bytes, but never more than the model's context window holds.
// why says where the limit comes from, for the error.
type inputCap struct {
	limit int64
	why   string
}

// newInputCap returns the input cap of a run on rt's model.
func newInputCap(rt *app.Runtime) inputCap {
	c := inputCap{limit: int64(rt.Config.MaxInputBytes), why: "max_input_bytes"}
	if c.limit <= 0 {
		c.limit = config.DefaultMaxInputBytes
	}
	if w := rt.ModelInfo().ContextWindow; w > 0 && int64(w)*bytesPerToken < c.limit {
		c.limit = int64(w) * bytesPerToken
		c.why = fmt.Sprintf("what %s's %d-token context window holds", rt.Model, w)
	}
	return c
}

// tooBig is the usage error of input over the cap: what was given (name,
// with size its size in bytes, or -1 when only "more than the cap" is
// known), the cap, and how to give the model a big file instead.
func (c inputCap) tooBig(name string, size int64) error {
	var what string
	if size < 0 {
		what = fmt.Sprintf("%s has more than %s", name, humanize.IBytes(uint64(c.limit)))
	} else {
		what = fmt.Sprintf("%s is %s (%d bytes)", name, humanize.IBytes(uint64(size)), size)
	}
	return usageErr("%s, over the %s input cap (%s): nothing was sent. Give a big file to the model as a file instead: "+
		"name it in the prompt for the model to read with read_file, or pass it with --attach FILE; "+
		"or raise max_input_bytes (aidex config set max_input_bytes BYTES)", what, humanize.IBytes(uint64(c.limit)), c.why)
}

// read reads r, named name, up to the cap: never more than cap+1 bytes,
// so memory stays bounded whatever arrives. size is the input's size when
// known (a regular file), else -1.
func (c inputCap) read(r io.Reader, name string, size int64) ([]byte, error) {
	if size > c.limit {
		return nil, c.tooBig(name, size)
	}
	data, err := io.ReadAll(io.LimitReader(r, c.limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > c.limit {
		return nil, c.tooBig(name, -1)
	}
	return data, nil
}

// sizeOf returns the size of r when it is a regular file, else -1.
func sizeOf(r io.Reader) int64 {
	f, ok := r.(*os.File)
	if !ok {
		return -1
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return -1
	}
	return fi.Size()
}

// readPrompt assembles the prompt from -p, -f and piped stdin: stdin is
// the prompt when -p is not given, and context before it when it is.
// Stdin and -f are read up to c: input over it is a usage error (exit 2)
// naming its size and the cap, read no further than the cap. An empty
// prompt is a usage error with the message empty.
func (a *cliApp) readPrompt(f *runFlags, c inputCap, empty string) (string, error) {
	prompt := f.prompt
	if f.file != "" {
		data, err := a.readPromptFile(f.file, c)
		if err != nil {
			return "", err
		}
		prompt = joinPrompt(prompt, string(data))
	} else if stdinPiped(a.proc.Stdin) {
		data, err := c.read(a.proc.Stdin, "stdin", sizeOf(a.proc.Stdin))
		var ee *ExitError
		if errors.As(err, &ee) {
			return "", err
		}
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		if s := strings.TrimSpace(string(data)); s != "" {
			if prompt == "" {
				prompt = s
			} else {
				prompt = "<context>\n" + s + "\n</context>\n\n" + prompt
			}
		}
	}
	if prompt = strings.TrimSpace(prompt); prompt == "" {
		return "", usageErr("%s", empty)
	}
	return prompt, nil
}

// readPromptFile reads -f's file ("-": stdin) up to c.
func (a *cliApp) readPromptFile(name string, c inputCap) ([]byte, error) {
	if name == "-" {
		data, err := c.read(a.proc.Stdin, "stdin", sizeOf(a.proc.Stdin))
		var ee *ExitError
		if err != nil && !errors.As(err, &ee) {
			err = usageErr("read prompt file: %v", err)
		}
		return data, err
	}
	fh, err := os.Open(name)
	if err != nil {
		return nil, usageErr("read prompt file: %v", err)
	}
	defer fh.Close()
	data, err := c.read(fh, name, sizeOf(fh))
	var ee *ExitError
	if err != nil && !errors.As(err, &ee) {
		err = usageErr("read prompt file: %v", err)
	}
	return data, err
}

func joinPrompt(a, b string) string {
	if a == "" {
		return b
	}
	return a + "\n\n" + b
}
