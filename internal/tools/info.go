package tools

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/charlievieth/fastwalk"

	"github.com/zelvior/aidex/internal/kind"
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

// InfoTools returns the information tools (all Kind read): get_file_info,
// count_lines, disk_usage, env_info, which and analyze_project. Register
// them with Registry.Register.
func InfoTools() []Def {
	return []Def{
		Define(Spec{Name: "get_file_info", Kind: kind.Read, Aliases: []string{"file_info", "stat"},
			Description: "Show a file's or directory's type, size, permissions, modification time and line count."},
			func(ctx context.Context, env *Env, a infoPathArgs) Result { return fileInfoTool(ctx, env, a.Path) }),
		Define(Spec{Name: "count_lines", Kind: kind.Read, Aliases: []string{"wc", "line_count"},
			Description: "Count lines in a file, or in every text file under a directory by extension (honours .gitignore)."},
			func(ctx context.Context, env *Env, a infoPathArgs) Result { return countLinesTool(ctx, env, a.Path) }),
		Define(Spec{Name: "disk_usage", Kind: kind.Read, Aliases: []string{"du"},
			Description: "Show the total size of a directory (ignored files included) and its largest entries."},
			func(ctx context.Context, env *Env, a infoPathArgs) Result { return diskUsageTool(ctx, env, a.Path) }),
		Define(Spec{Name: "env_info", Kind: kind.Read, Aliases: []string{"environment_info", "system_info"},
			Description: "Show the OS, architecture, shell, workspace and installed Go/Python/Node/Git versions."},
			func(ctx context.Context, env *Env, _ noArgs) Result { return envInfoTool(ctx, env) }),
		Define(Spec{Name: "which", Kind: kind.Read, Aliases: []string{"command_exists", "find_executable"},
			Description: "Find a program on PATH (is a command installed?)."},
			func(ctx context.Context, env *Env, a whichArgs) Result { return whichTool(a.Name) }),
		Define(Spec{Name: "analyze_project", Kind: kind.Read, Aliases: []string{"project_overview", "analyze_codebase"},
			Description: "Summarise the project: languages (files, lines), build files, likely build/test commands and the top-level layout."},
			func(ctx context.Context, env *Env, a analyzeArgs) Result { return analyzeProject(ctx, env, a) }),
	}
}

type infoPathArgs struct {
	Path string `json:"path,omitempty" jsonschema:"File or directory" tool:"path" default:"\".\""`
}

type whichArgs struct {
	Name string `json:"name" jsonschema:"Program name, e.g. go or npm"`
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
func statTarget(env *Env, p string) (abs, lexical string, fi fs.FileInfo, res *Result) {
	abs, res = env.resolve("path", p)
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
		r := Failf(CategoryNotFound, "%s does not exist", env.rel(abs))
		return "", "", nil, &r
	case err != nil:
		r := Failf(CategoryExecution, "cannot stat %s: %v", env.rel(abs), err)
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

func fileInfoTool(ctx context.Context, env *Env, p string) Result {
	abs, lexical, fi, res := statTarget(env, p)
	if res != nil {
		return *res
	}
	var b strings.Builder
	fmt.Fprintf(&b, "path: %s\n", env.rel(lexical))
	fmt.Fprintf(&b, "type: %s\n", fileType(fi.Mode()))
	if fi.Mode()&fs.ModeSymlink != 0 {
		target, _ := os.Readlink(lexical)
		fmt.Fprintf(&b, "link target: %s (resolves to %s)\n", target, env.rel(abs))
		if fi, res = statResolved(env, abs); res != nil {
			return *res
		}
		fmt.Fprintf(&b, "target type: %s\n", fileType(fi.Mode()))
	}
	fmt.Fprintf(&b, "size: %d bytes (%s)\n", fi.Size(), humanBytes(fi.Size()))
	fmt.Fprintf(&b, "mode: %s (%04o)\n", fi.Mode().String(), fi.Mode().Perm())
	fmt.Fprintf(&b, "modified: %s\n", fi.ModTime().Format(time.RFC3339))
	meta := &Meta{Path: env.rel(abs)}
	switch {
	case fi.Mode().IsRegular():
		c, err := countFileLines(ctx, abs)
		switch {
		case err != nil:
			fmt.Fprintf(&b, "lines: unknown (%v)\n", err)
		case c.binary:
			b.WriteString("content: binary\n")
		default:
			fmt.Fprintf(&b, "lines: %d\n", c.lines)
			meta.Lines = c.lines
		}
	case fi.IsDir():
		if entries, err := os.ReadDir(abs); err == nil {
			fmt.Fprintf(&b, "entries: %d\n", len(entries))
		}
	}
	return Success(b.String(), meta)
}

func statResolved(env *Env, abs string) (fs.FileInfo, *Result) {
	fi, err := os.Stat(abs)
	if err != nil {
		r := Failf(CategoryNotFound, "the symlink target %s cannot be read: %v", env.rel(abs), err)
		return nil, &r
	}
	return fi, nil
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

func countLinesTool(ctx context.Context, env *Env, p string) Result {
	abs, res := env.resolve("path", p)
	if res != nil {
		return *res
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Failf(CategoryNotFound, "%s does not exist", env.rel(abs))
	case err != nil:
		return Failf(CategoryExecution, "cannot stat %s: %v", env.rel(abs), err)
	case fi.Mode().IsRegular():
		c, err := countFileLines(ctx, abs)
		if err != nil {
			return Failf(CategoryExecution, "cannot read %s: %v", env.rel(abs), err)
		}
		if c.binary {
			return Failf(CategoryValidation, "%s is a binary file (%s); lines are counted in text files only",
				env.rel(abs), humanBytes(c.bytes))
		}
		return Success(fmt.Sprintf("%d lines in %s (%s)", c.lines, env.rel(abs), humanBytes(c.bytes)),
			&Meta{Path: env.rel(abs), Lines: c.lines})
	case !fi.IsDir():
		return Failf(CategoryValidation, "%s is a %s, not a file or directory", env.rel(abs), fileType(fi.Mode()))
	}
	return countDirLines(ctx, env, abs)
}

func countDirLines(ctx context.Context, env *Env, abs string) Result {
	var mu sync.Mutex
	groups := map[string]*extGroup{}
	var files, binaries, total int
	var seen atomic.Int64
	truncated := false
	err := walkTree(ctx, abs, 0, func(fileAbs, rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() {
			return nil
		}
		if seen.Add(1) > maxCountFiles {
			mu.Lock()
			truncated = true
			mu.Unlock()
			return errWalkLimit
		}
		c, err := countFileLines(ctx, fileAbs)
		if err != nil {
			return nil
		}
		mu.Lock()
		defer mu.Unlock()
		if c.binary {
			binaries++
			return nil
		}
		ext := extOf(rel)
		g := groups[ext]
		if g == nil {
			g = &extGroup{ext: ext}
			groups[ext] = g
		}
		g.files++
		g.lines += c.lines
		files++
		total += c.lines
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return Failf(CategoryExecution, "count_lines cancelled: %v", ctx.Err())
	}
	list := make([]*extGroup, 0, len(groups))
	for _, g := range groups {
		list = append(list, g)
	}
	slices.SortFunc(list, func(a, b *extGroup) int {
		return cmp.Or(cmp.Compare(b.lines, a.lines), cmp.Compare(a.ext, b.ext))
	})
	var b strings.Builder
	fmt.Fprintf(&b, "%d lines in %d text files under %s", total, files, env.rel(abs))
	if binaries > 0 {
		fmt.Fprintf(&b, " (%d binary files skipped)", binaries)
	}
	b.WriteString(" (.gitignore honoured)\n")
	if truncated {
		fmt.Fprintf(&b, "[stopped after %d files; count a subdirectory for exact numbers]\n", maxCountFiles)
	}
	for i, g := range list {
		if i == maxListedGroups {
			fmt.Fprintf(&b, "... %d more extensions\n", len(list)-i)
			break
		}
		fmt.Fprintf(&b, "%10d  %6d files  %s\n", g.lines, g.files, g.ext)
	}
	return Success(b.String(), &Meta{Path: env.rel(abs), Lines: total, Truncated: truncated})
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

func diskUsageTool(ctx context.Context, env *Env, p string) Result {
	abs, _, fi, res := statTarget(env, p)
	if res != nil {
		return *res
	}
	if st, err := os.Stat(abs); err == nil {
		fi = st
	}
	if !fi.IsDir() {
		return Success(fmt.Sprintf("%s: %s (%d bytes)", env.rel(abs), humanBytes(fi.Size()), fi.Size()),
			&Meta{Path: env.rel(abs)})
	}
	var mu sync.Mutex
	children := map[string]int64{}
	var total int64
	var entries atomic.Int64
	truncated := false
	conf := fastwalk.Config{Follow: false}
	err := fastwalk.Walk(&conf, abs, func(fp string, d fs.DirEntry, err error) error {
		if err != nil || fp == abs {
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if entries.Add(1) > maxDiskEntries {
			mu.Lock()
			truncated = true
			mu.Unlock()
			return errWalkLimit
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(abs, fp)
		top, _, _ := strings.Cut(filepath.ToSlash(rel), "/")
		mu.Lock()
		children[top] += info.Size()
		total += info.Size()
		mu.Unlock()
		return nil
	})
	if err != nil && ctx.Err() != nil {
		return Failf(CategoryExecution, "disk_usage cancelled: %v", ctx.Err())
	}
	type row struct {
		name string
		size int64
	}
	rows := make([]row, 0, len(children))
	for n, s := range children {
		rows = append(rows, row{n, s})
	}
	slices.SortFunc(rows, func(a, b row) int { return cmp.Or(cmp.Compare(b.size, a.size), cmp.Compare(a.name, b.name)) })
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s in %d entries (apparent size of regular files, ignored files included)\n",
		env.rel(abs), humanBytes(total), min(entries.Load(), maxDiskEntries))
	if truncated {
		fmt.Fprintf(&b, "[stopped after %d entries; the total is a lower bound]\n", maxDiskEntries)
	}
	for i, r := range rows {
		if i == maxListedGroups {
			fmt.Fprintf(&b, "... %d more entries\n", len(rows)-i)
			break
		}
		fmt.Fprintf(&b, "%10s  %s\n", humanBytes(r.size), r.name)
	}
	return Success(b.String(), &Meta{Path: env.rel(abs), Truncated: truncated})
}

// versionProbes are the tools env_info reports, with the arguments that
// print their version quickly.
var versionProbes = [...]struct{ name, bin, arg string }{
	{"go", "go", "version"},
	{"python", "python3", "--version"},
	{"node", "node", "--version"},
	{"npm", "npm", "--version"},
	{"git", "git", "--version"},
	{"ripgrep", "rg", "--version"},
	{"cargo", "cargo", "--version"},
}

func envInfoTool(ctx context.Context, env *Env) Result {
	var b strings.Builder
	fmt.Fprintf(&b, "os: %s\narch: %s\n", osName(), runtime.GOARCH)
	if sh := os.Getenv("SHELL"); sh != "" {
		fmt.Fprintf(&b, "shell: %s\n", sh)
	}
	fmt.Fprintf(&b, "cpus: %d\n", runtime.NumCPU())
	if env != nil && env.Workspace != nil {
		fmt.Fprintf(&b, "workspace: %s\n", env.Workspace.Root())
	}
	versions := make([]string, len(versionProbes))
	var wg sync.WaitGroup
	environ := ChildEnviron(os.Environ(), nil)
	for i, p := range versionProbes {
		bin, err := exec.LookPath(p.bin)
		if err != nil {
			if p.name == "python" {
				if bin, err = exec.LookPath("python"); err != nil {
					continue
				}
			} else {
				continue
			}
		}
		wg.Go(func() {
			o := runProcess(ctx, runSpec{argv: []string{bin, p.arg}, dir: os.TempDir(), env: environ,
				timeout: versionTimeout, maxChars: 2000})
			if o.ran && o.exitCode == 0 {
				line, _, _ := strings.Cut(strings.TrimSpace(o.output), "\n")
				versions[i] = line
			}
		})
	}
	wg.Wait()
	for i, p := range versionProbes {
		v := versions[i]
		if v == "" {
			v = "not installed"
		}
		fmt.Fprintf(&b, "%s: %s\n", p.name, v)
	}
	return Success(b.String(), nil)
}

// osName is GOOS plus the distribution's PRETTY_NAME on Linux.
func osName() string {
	name := runtime.GOOS
	if runtime.GOOS != "linux" {
		return name
	}
	f, err := os.Open("/etc/os-release")
	if err != nil {
		return name
	}
	defer f.Close()
	sc := bufio.NewScanner(io.LimitReader(f, 64*1024))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRETTY_NAME="); ok {
			return name + " (" + strings.Trim(v, `"'`) + ")"
		}
	}
	return name
}

func whichTool(name string) Result {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return Failf(CategoryValidation, "which: name is empty; give a program name such as go")
	case len(name) > 255 || strings.ContainsAny(name, "/\\\x00") || strings.ContainsFunc(name, isControl):
		return Failf(CategoryValidation, "which: %q is not a program name; give a bare name (no path separators)",
			truncateName(name))
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return Failf(CategoryNotFound, "%s is not installed (not found on PATH)", name)
	}
	return Success(p, &Meta{Path: p})
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
