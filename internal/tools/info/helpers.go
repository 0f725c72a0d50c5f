package info

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/zelvior/aidex/internal/tools"
)

// Limits of the information tools.
const (
	maxCountFiles   = 100000  // files count_lines reads in a directory
	maxDiskEntries  = 2000000 // entries disk_usage visits
	versionTimeout  = 3 * time.Second
	infoSniffBytes  = 8000 // bytes checked for NUL to call a file binary
	maxListedGroups = 25   // rows in per-extension / per-child tables
)

// errWalkLimit stops a walk that reached its entry limit.
var errWalkLimit = errors.New("walk limit reached")

type infoPathArgs struct {
	Path string `json:"path,omitempty" jsonschema:"File or directory" tool:"path" default:"\".\""`
}

// lineCount is the result of counting one file's lines.
type lineCount struct {
	lines  int
	bytes  int64
	binary bool
}

// countFileLines counts the lines of the regular file abs (a last line
// without a newline counts). A NUL byte in the first infoSniffBytes
// marks it binary (lines not counted).
func countFileLines(ctx context.Context, abs string) (lineCount, error) {
	f, err := os.Open(abs)
	if err != nil {
		return lineCount{}, err
	}
	defer f.Close()
	var c lineCount
	buf := make([]byte, 64*1024)
	last := byte('\n')
	for {
		n, err := f.Read(buf)
		if n > 0 {
			if c.bytes < infoSniffBytes && bytes.IndexByte(buf[:min(n, infoSniffBytes-int(c.bytes))], 0) >= 0 {
				return lineCount{bytes: c.bytes + int64(n), binary: true}, nil
			}
			c.lines += bytes.Count(buf[:n], []byte{'\n'})
			c.bytes += int64(n)
			last = buf[n-1]
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return c, err
		}
		if ctx.Err() != nil {
			return c, ctx.Err()
		}
	}
	if last != '\n' {
		c.lines++
	}
	return c, nil
}

// statTarget resolves a path parameter and Lstats it as written, so a
// symlink is reported as one. abs is the resolved path.
func statTarget(env *tools.Env, p string) (abs, lexical string, fi fs.FileInfo, res *tools.Result) {
	abs, res = env.Resolve("path", p)
	if res != nil {
		return "", "", nil, res
	}
	lexical = p
	if !filepath.IsAbs(lexical) {
		lexical = filepath.Join(env.Workspace.Root(), lexical)
	}
	fi, err := os.Lstat(lexical)
	if err != nil {
		lexical = abs
		fi, err = os.Lstat(abs)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		r := tools.Failf(tools.CategoryNotFound, "%s does not exist", env.Rel(abs))
		return "", "", nil, &r
	case err != nil:
		r := tools.Failf(tools.CategoryExecution, "cannot stat %s: %v", env.Rel(abs), err)
		return "", "", nil, &r
	}
	return abs, lexical, fi, nil
}

func fileType(m fs.FileMode) string {
	switch {
	case m.IsRegular():
		return "file"
	case m.IsDir():
		return "directory"
	case m&fs.ModeSymlink != 0:
		return "symlink"
	case m&fs.ModeNamedPipe != 0:
		return "named pipe (FIFO)"
	case m&fs.ModeSocket != 0:
		return "socket"
	case m&fs.ModeDevice != 0:
		return "device"
	}
	return "other"
}

// humanBytes formats n bytes as "1.5 KiB", "20 MiB".
func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	div, exp := int64(unit), 0
	for v := n / unit; v >= unit && exp < 5; v /= unit {
		div *= unit
		exp++
	}
	return fmt.Sprintf("%.1f %ciB", float64(n)/float64(div), "KMGTPE"[exp])
}

// extGroup is the per-extension aggregate of count_lines.
type extGroup struct {
	ext          string
	files, lines int
}

// extOf is the lower-case extension of a slash path ("(none)" without
// one; well-known extensionless names such as Makefile as themselves).
func extOf(rel string) string {
	base := path.Base(rel)
	ext := strings.ToLower(path.Ext(base))
	if ext == "" || ext == base {
		switch base {
		case "Makefile", "Dockerfile", "Justfile", "justfile", "Rakefile", "Gemfile":
			return base
		}
		return "(none)"
	}
	return ext
}
