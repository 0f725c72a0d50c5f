package ollama

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"

	"github.com/zelvior/aidex/internal/llm"
)

// chunk is one NDJSON line of /api/chat (or the whole body when not
// streamed). Error is set on an error line instead of the rest.
type chunk struct {
	Model           string          `json:"model"`
	Message         *wireReply      `json:"message"`
	Done            bool            `json:"done"`
	DoneReason      string          `json:"done_reason"`
	PromptEvalCount int             `json:"prompt_eval_count"`
	EvalCount       int             `json:"eval_count"`
	Error           json.RawMessage `json:"error"`
}

type wireReply struct {
	Content   string          `json:"content"`
	Thinking  string          `json:"thinking"`
	ToolCalls []replyToolCall `json:"tool_calls"`
}

// replyToolCall is a whole tool call: Ollama parses the model's output and
// sends each call complete, arguments as an object.
type replyToolCall struct {
	ID       string `json:"id"`
	Function struct {
		Name      string          `json:"name"`
		Arguments json.RawMessage `json:"arguments"`
	} `json:"function"`
}

// maxLine caps one NDJSON line, in bytes: a line longer than this is not an
// answer chunk (a misbehaving proxy); 64 MiB leaves room for huge tool calls.
const maxLine = 64 << 20

// decoder turns lines into accumulator calls. It lives for one response.
type decoder struct {
	acc   *llm.Accumulator
	name  string
	calls int
}

// readStream reads NDJSON lines until the one with `done: true`.
func readStream(r io.Reader, acc *llm.Accumulator, name string) error {
	d := &decoder{acc: acc, name: name}
	br := bufio.NewReaderSize(r, 32<<10)
	var buf []byte
	for {
		line, err := readLine(br, &buf)
		if errors.Is(err, errLineTooLong) {
			return &llm.APIError{Provider: name, Kind: llm.KindStream, Message: err.Error()}
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return err // a timeout or cut reported by the body, or ctx.Err()
		}
		if line = bytes.TrimSpace(line); len(line) > 0 {
			done, lerr := d.line(line, err != nil)
			if lerr != nil || done {
				return lerr
			}
		}
		if err != nil {
			return &llm.APIError{Provider: name, Kind: llm.KindStreamCut, Message: "the stream ended before the answer was complete (no line with done: true)"}
		}
	}
}

// errLineTooLong is returned by readLine for a line over maxLine bytes.
var errLineTooLong = errors.New("a line of the response is longer than " + strconv.Itoa(maxLine>>20) + " MiB: the host is not answering as Ollama does")

// readLine returns the next line without its newline, reusing *buf. At the
// end of the body it returns the last, unterminated line with io.EOF.
func readLine(br *bufio.Reader, buf *[]byte) ([]byte, error) {
	*buf = (*buf)[:0]
	for {
		part, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			*buf = append(*buf, part...)
			if len(*buf) > maxLine {
				return nil, errLineTooLong
			}
			continue
		}
		if len(*buf) > 0 {
			*buf = append(*buf, part...)
			part = *buf
		}
		return bytes.TrimSuffix(part, []byte{'\n'}), err
	}
}

// line applies one line; last says the body ended after it. It reports
// whether the answer is done.
func (d *decoder) line(line []byte, last bool) (bool, error) {
	var ch chunk
	if err := json.Unmarshal(line, &ch); err != nil {
		kind, msg := llm.KindStream, "malformed line from Ollama: "
		if last && isTruncated(err, line) {
			kind, msg = llm.KindStreamCut, "the answer was cut off mid-line: "
		}
		return false, &llm.APIError{Provider: d.name, Kind: kind, Message: msg + snippet(line), Err: err}
	}
	d.acc.SetRaw(line)
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return false, llm.NewStreamError(d.name, line)
	}
	d.acc.SetMeta("", ch.Model)
	if m := ch.Message; m != nil {
		d.acc.Reasoning(m.Thinking)
		d.acc.Text(m.Content)
		for _, c := range m.ToolCalls {
			id := c.ID
			if id == "" {
				id = "call_" + strconv.Itoa(d.calls)
			}
			d.calls++
			d.acc.ToolCall(llm.ToolCall{ID: id, Name: c.Function.Name, Arguments: c.Function.Arguments})
		}
	}
	if !ch.Done {
		return false, nil
	}
	d.acc.Usage(llm.Usage{InputTokens: ch.PromptEvalCount, OutputTokens: ch.EvalCount})
	d.acc.Finish(ch.DoneReason)
	return true, nil
}

// isTruncated reports whether a JSON error means the text stopped early.
func isTruncated(err error, data []byte) bool {
	var se *json.SyntaxError
	return errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &se) && se.Offset >= int64(len(data))
}

// snippet returns the start of data for error messages.
func snippet(data []byte) string {
	const max = 200
	if len(data) > max {
		return string(data[:max]) + "..."
	}
	return string(data)
}
