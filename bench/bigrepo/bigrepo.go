// Package bigrepo builds the synthetic big repository of issue 21's
// target 4: a deterministic tree of source-like files (Go, JavaScript,
// Python, Markdown, JSON, a few binaries) in nested directories, with a
// root .gitignore that ignores node_modules/ and a large node_modules tree
// under it. The same Config and seed always give the same bytes. gen/ is
// the program bench/bigrepo.sh runs; the benchmarks beside this file run
// the search tools on a small tree made by it.
//
// Every searched file may hold the rare needles the benchmarks look for:
// the literal Needle (about one file in NeedleEvery) and identifiers
// matching RegexNeedle (about one file in RegexEvery), so a search returns
// a modest number of matches and has to read the whole tree.
package bigrepo

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
)

// The needles of the benchmarks' searches.
const (
	// Needle is the literal pattern: a rare identifier.
	Needle = "ParseBigrepoManifest"
	// RegexNeedle is the regex of the issue with no literal of two or
	// more bytes: a capitalised word, three digits, an x.
	RegexNeedle = `[A-Z][a-z]+[0-9]{3}x`
	// NoLiteralRegex matches the same identifiers with no literal at
	// all: every part is a character class.
	NoLiteralRegex = `\b[A-Z][a-z]+[0-9]{3}[a-z]\b`
	// NeedleEvery is about how many files hold one Needle line per file
	// that does.
	NeedleEvery = 400
	// RegexEvery is the same for an identifier matching RegexNeedle.
	RegexEvery = 300
)

// Config sizes a tree. Files and Bytes are targets the generated tree
// comes close to (within a few per cent); IgnoredShare of both lies under
// the ignored node_modules/.
type Config struct {
	Files        int     // files in total, ignored ones included
	Bytes        int64   // bytes in total, ignored ones included
	IgnoredShare float64 // fraction in node_modules/, 0..0.9
	Seed         uint64  // the tree is a function of Config alone
}

// Full is the tree of issue 21: 100,000 files, 1.5 GB, 40% ignored.
var Full = Config{Files: 100_000, Bytes: 1_500_000_000, IgnoredShare: 0.4, Seed: 21}

// Stats are the counts of a generated tree (searched = not ignored).
type Stats struct {
	Files, SearchedFiles int
	Bytes, SearchedBytes int64
	Dirs                 int
}

// String returns the counts in one line.
func (s Stats) String() string {
	return fmt.Sprintf("%d files, %.2f GB (searched: %d files, %.2f GB; ignored node_modules: %d files, %.2f GB), %d directories",
		s.Files, float64(s.Bytes)/1e9, s.SearchedFiles, float64(s.SearchedBytes)/1e9,
		s.Files-s.SearchedFiles, float64(s.Bytes-s.SearchedBytes)/1e9, s.Dirs)
}

// fileSpec is one file to write: its path relative to the root, its kind
// and its size in bytes.
type fileSpec struct {
	rel     string
	kind    kindOf
	size    int
	ignored bool
}

// Generate writes the tree described by c under root (created; it must
// not exist or be empty) and returns its counts. Files are written by
// GOMAXPROCS workers; errors name the file.
func Generate(root string, c Config) (Stats, error) {
	if c.Files < 10 || c.Bytes < int64(c.Files)*100 || c.IgnoredShare < 0 || c.IgnoredShare > 0.9 {
		return Stats{}, fmt.Errorf("bigrepo: config %+v: need Files ≥ 10, Bytes ≥ 100 per file, IgnoredShare in 0..0.9", c)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return Stats{}, fmt.Errorf("bigrepo: %w", err)
	}
	if ents, _ := os.ReadDir(root); len(ents) > 0 {
		return Stats{}, fmt.Errorf("bigrepo: %s is not empty; give a new directory", root)
	}
	specs := plan(c)
	dirs := map[string]bool{}
	for _, s := range specs {
		dirs[filepath.Dir(s.rel)] = true
	}
	for d := range dirs {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			return Stats{}, fmt.Errorf("bigrepo: %w", err)
		}
	}
	st := Stats{Files: len(specs), Dirs: len(dirs)}
	if err := writeAll(root, c.Seed, specs); err != nil {
		return Stats{}, err
	}
	for _, s := range specs {
		st.Bytes += int64(s.size)
		if !s.ignored {
			st.SearchedFiles++
			st.SearchedBytes += int64(s.size)
		}
	}
	return st, nil
}

// writeAll writes specs in parallel; file i's content depends only on
// the seed and i.
func writeAll(root string, seed uint64, specs []fileSpec) error {
	pools := newPools(seed)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, runtime.GOMAXPROCS(0))
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var buf []byte
			for {
				i := int(next.Add(1) - 1)
				if i >= len(specs) {
					return
				}
				s := specs[i]
				rng := rand.New(rand.NewPCG(seed, uint64(i)+1))
				buf = pools.content(buf[:0], rng, s)
				if err := os.WriteFile(filepath.Join(root, s.rel), buf, 0o644); err != nil {
					errs[w] = fmt.Errorf("bigrepo: write %s: %w", s.rel, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// plan lays out the files: fixed project files, then the searched tree
// by language, then node_modules. Sizes follow an exponential
// distribution around the mean that gives c.Bytes in total.
func plan(c Config) []fileSpec {
	rng := rand.New(rand.NewPCG(c.Seed, 0))
	ignoredFiles := int(float64(c.Files) * c.IgnoredShare)
	ignoredBytes := int64(float64(c.Bytes) * c.IgnoredShare)
	searchedFiles := c.Files - ignoredFiles - len(rootFiles)
	specs := make([]fileSpec, 0, c.Files)
	for _, r := range rootFiles {
		specs = append(specs, fileSpec{rel: r.rel, kind: r.kind, size: 400})
	}
	mean := float64(c.Bytes-ignoredBytes-int64(len(rootFiles))*400) / float64(max(searchedFiles, 1))
	var nth [kindBinary + 1]int // files of each kind so far
	for i := range searchedFiles {
		k := pickKind(i)
		specs = append(specs, fileSpec{rel: searchedPath(nth[k], k), kind: k, size: drawSize(rng, mean, k)})
		nth[k]++
	}
	mean = float64(ignoredBytes) / float64(max(ignoredFiles, 1))
	for i := range ignoredFiles {
		k := kindJS
		if i%7 == 6 {
			k = kindJSON
		}
		specs = append(specs, fileSpec{rel: modulePath(i, k), kind: k, size: drawSize(rng, mean, k), ignored: true})
	}
	return specs
}

// rootFiles are the project files at the root.
var rootFiles = []struct {
	rel  string
	kind kindOf
}{
	{".gitignore", kindGitignore}, {"go.mod", kindGoMod}, {"package.json", kindJSON},
	{"README.md", kindMarkdown}, {"Makefile", kindMakefile},
}

// drawSize returns a file size around mean: exponential, at least 200
// bytes and at most 40 times the mean; binaries are a fixed 3 times the
// mean at most.
func drawSize(rng *rand.Rand, mean float64, k kindOf) int {
	s := rng.ExpFloat64() * mean
	if k == kindBinary {
		s = min(s, 3*mean)
	}
	return int(min(max(s, 200), 40*mean))
}

// pickKind returns the kind of the i-th searched file: Go 40%, JS 27%,
// Python 20%, Markdown 9%, JSON 2%, binary 2%.
func pickKind(i int) kindOf {
	switch r := i % 100; {
	case r < 40:
		return kindGo
	case r < 67:
		return kindJS
	case r < 87:
		return kindPython
	case r < 96:
		return kindMarkdown
	case r < 98:
		return kindJSON
	}
	return kindBinary
}

// searchedPath nests the i-th searched file of kind k: about 25 files a
// directory, three to five levels deep, spread over the kind's top
// directories.
func searchedPath(i int, k kindOf) string {
	d := i / 25
	name := fmt.Sprintf("%s_%d%s", words[i%len(words)], i, k.ext())
	switch k {
	case kindGo:
		return fmt.Sprintf("services/svc%02d/internal/%s%d/%s", d%40, words[(d/40)%len(words)], d/40%20, name)
	case kindJS:
		return fmt.Sprintf("web/packages/p%02d/src/components/%s%d/%s", d%30, words[(d/30)%len(words)], d/30%25, name)
	case kindPython:
		return fmt.Sprintf("python/%s/pkg%02d/mod%d/%s", words[d%12], d/12%30, d%7, name)
	case kindMarkdown:
		return fmt.Sprintf("docs/%s/section%d/%s", words[d%20], d/20%15, name)
	case kindJSON:
		return fmt.Sprintf("config/env%d/%s", d%10, name)
	}
	return fmt.Sprintf("assets/img%d/%s", d%16, name)
}

// modulePath nests the i-th file of node_modules: packages of about 40
// files, some with a nested node_modules of their own.
func modulePath(i int, k kindOf) string {
	pkg := i / 40
	name := fmt.Sprintf("%s%d%s", words[i%len(words)], i%40, k.ext())
	if pkg%5 == 4 {
		return fmt.Sprintf("node_modules/%s-%d/node_modules/%s-dep/lib/%s", words[pkg%len(words)], pkg, words[(pkg/5)%len(words)], name)
	}
	return fmt.Sprintf("node_modules/%s-%d/lib/sub%d/%s", words[pkg%len(words)], pkg, i%3, name)
}

// kindOf is a file's content kind.
type kindOf int

const (
	kindGo kindOf = iota
	kindJS
	kindPython
	kindMarkdown
	kindJSON
	kindBinary
	kindGitignore
	kindGoMod
	kindMakefile
)

func (k kindOf) ext() string {
	return [...]string{".go", ".js", ".py", ".md", ".json", ".png", "", "", ""}[k]
}

// words is the vocabulary of identifiers, paths and prose.
var words = strings.Fields(`alpha bravo cache client config context cursor daemon delta
	encoder event fetch filter format gateway handler index issue journal kernel ledger
	limit loader merge metric module network option parser patch policy queue reader
	record region router schema scope server session signal source stream target token
	tracker update upload vector worker writer buffer channel cluster commit`)
