package helper

// The Go build cache of sandboxed commands: a GOCACHEPROG program (Go
// 1.24+) that reads through to the user's own build cache but writes
// only to a private one. A command therefore starts with everything the
// user already compiled, and nothing it compiles reaches the cache the
// user's own builds read.
//
// The protocol is cmd/go's (cmd/go/internal/cacheprog): JSON values on
// stdin and stdout; the program first announces the commands it knows;
// a "put" request is followed by its body as a base64 JSON string. The
// stores use the layout of cmd/go's own cache (XX/<action>-a entries
// naming XX/<output>-d files), so the user's cache is read as it is.

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// GoCacheProgArg is the first argument that makes Main serve as the Go
// build cache (GoCacheProg).
const GoCacheProgArg = "--gocacheprog"

// cacheRequest is cmd/go's cacheprog.Request.
type cacheRequest struct {
	ID       int64
	Command  string
	ActionID []byte `json:",omitempty"`
	OutputID []byte `json:",omitempty"`
	ObjectID []byte `json:",omitempty"` // the name before Go 1.24
	BodySize int64  `json:",omitempty"`
}

// cacheResponse is cmd/go's cacheprog.Response.
type cacheResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// GoCacheProg serves cmd/go on stdin and stdout with args [PRIVATE,
// USER]: the private cache folder (created) and the user's cache folder
// (read only; "" or missing: none). It returns the exit status.
func GoCacheProg(args []string) int {
	if len(args) != 2 || !filepath.IsAbs(args[0]) {
		fmt.Fprintln(os.Stderr, "aidex-sandbox --gocacheprog: want PRIVATE USER (absolute folders)")
		return 2
	}
	if err := ServeGoCache(os.Stdin, os.Stdout, args[0], args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "aidex-sandbox --gocacheprog:", err)
		return 1
	}
	return 0
}

// ServeGoCache answers cmd/go's requests read from r on w until "close"
// or the end of r. Errors: r or w fail, or a request is malformed.
func ServeGoCache(r io.Reader, w io.Writer, private, user string) error {
	if err := os.MkdirAll(private, 0o700); err != nil {
		return err
	}
	dec := json.NewDecoder(bufio.NewReader(r))
	bw := bufio.NewWriter(w)
	var mu sync.Mutex
	enc := json.NewEncoder(bw)
	send := func(res cacheResponse) error {
		mu.Lock()
		defer mu.Unlock()
		if err := enc.Encode(res); err != nil {
			return err
		}
		return bw.Flush()
	}
	if err := send(cacheResponse{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	for {
		var req cacheRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		var body []byte
		if req.Command == "put" && req.BodySize > 0 {
			if err := dec.Decode(&body); err != nil {
				return fmt.Errorf("put %d: body: %w", req.ID, err)
			}
		}
		res := cacheResponse{ID: req.ID}
		switch req.Command {
		case "get":
			res = get(req, private, user)
		case "put":
			res = put(req, body, private)
		case "close":
			return send(res)
		default:
			res.Err = "unknown command " + strconv.Quote(req.Command)
		}
		if err := send(res); err != nil {
			return err
		}
	}
}

// get looks the action up in the private cache, then in the user's.
func get(req cacheRequest, private, user string) cacheResponse {
	res := cacheResponse{ID: req.ID, Miss: true}
	for _, dir := range []string{private, user} {
		if dir == "" {
			continue
		}
		out, size, t, ok := readEntry(dir, req.ActionID)
		if !ok {
			continue
		}
		p := outputPath(dir, out)
		if st, err := os.Stat(p); err != nil || st.Size() != size {
			continue
		}
		return cacheResponse{ID: req.ID, OutputID: out, Size: size, Time: &t, DiskPath: p}
	}
	return res
}

// put stores an output and its action entry in the private cache.
func put(req cacheRequest, body []byte, private string) cacheResponse {
	res := cacheResponse{ID: req.ID}
	out := req.OutputID
	if out == nil {
		out = req.ObjectID
	}
	if len(req.ActionID) == 0 || len(out) == 0 || int64(len(body)) != req.BodySize {
		res.Err = "put: bad request"
		return res
	}
	if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != hex.EncodeToString(out) {
		res.Err = "put: the body does not match its output ID"
		return res
	}
	p := outputPath(private, out)
	if err := writeAtomic(p, body); err != nil {
		res.Err = err.Error()
		return res
	}
	now := time.Now()
	entry := fmt.Sprintf("v1 %x %x %20d %20d\n", req.ActionID, out, len(body), now.UnixNano())
	if err := writeAtomic(entryPath(private, req.ActionID), []byte(entry)); err != nil {
		res.Err = err.Error()
		return res
	}
	res.OutputID, res.Size, res.Time, res.DiskPath = out, int64(len(body)), &now, p
	return res
}

func entryPath(dir string, action []byte) string {
	h := hex.EncodeToString(action)
	if len(h) < 2 {
		h = "00"
	}
	return filepath.Join(dir, h[:2], h+"-a")
}

func outputPath(dir string, out []byte) string {
	h := hex.EncodeToString(out)
	if len(h) < 2 {
		h = "00"
	}
	return filepath.Join(dir, h[:2], h+"-d")
}

// readEntry reads the action entry "v1 <action> <output> <size> <time>"
// of cmd/go's layout.
func readEntry(dir string, action []byte) (out []byte, size int64, t time.Time, ok bool) {
	b, err := os.ReadFile(entryPath(dir, action))
	if err != nil || len(b) > 512 {
		return nil, 0, t, false
	}
	f := strings.Fields(string(b))
	if len(f) != 5 || f[0] != "v1" || f[1] != hex.EncodeToString(action) {
		return nil, 0, t, false
	}
	out, err1 := hex.DecodeString(f[2])
	size, err2 := strconv.ParseInt(f[3], 10, 64)
	nano, err3 := strconv.ParseInt(f[4], 10, 64)
	if err1 != nil || err2 != nil || err3 != nil || size < 0 {
		return nil, 0, t, false
	}
	return out, size, time.Unix(0, nano), true
}

// writeAtomic writes b to p through a temporary file in its folder.
func writeAtomic(p string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".tmp-*")
	if err != nil {
		return err
	}
	_, werr := f.Write(b)
	cerr := f.Close()
	if werr != nil || cerr != nil {
		os.Remove(f.Name())
		return errors.Join(werr, cerr)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
