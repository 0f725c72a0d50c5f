package info

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
)

// languageByExt maps a lower-case file extension to a language name.
var languageByExt = map[string]string{
	".go": "Go", ".py": "Python", ".pyi": "Python", ".js": "JavaScript", ".mjs": "JavaScript", ".cjs": "JavaScript",
	".jsx": "JavaScript", ".ts": "TypeScript", ".tsx": "TypeScript", ".mts": "TypeScript", ".rs": "Rust",
	".java": "Java", ".kt": "Kotlin", ".kts": "Kotlin", ".scala": "Scala", ".c": "C", ".h": "C/C++ header",
	".cc": "C++", ".cpp": "C++", ".cxx": "C++", ".hpp": "C++", ".hh": "C++", ".cs": "C#", ".fs": "F#",
	".rb": "Ruby", ".php": "PHP", ".swift": "Swift", ".m": "Objective-C", ".mm": "Objective-C",
	".sh": "Shell", ".bash": "Shell", ".zsh": "Shell", ".ps1": "PowerShell", ".lua": "Lua", ".dart": "Dart",
	".ex": "Elixir", ".exs": "Elixir", ".erl": "Erlang", ".hs": "Haskell", ".ml": "OCaml", ".clj": "Clojure",
	".r": "R", ".jl": "Julia", ".zig": "Zig", ".nim": "Nim", ".sql": "SQL", ".html": "HTML", ".htm": "HTML",
	".css": "CSS", ".scss": "SCSS", ".sass": "SCSS", ".less": "Less", ".vue": "Vue", ".svelte": "Svelte",
	".md": "Markdown", ".mdx": "Markdown", ".rst": "reStructuredText", ".json": "JSON", ".yaml": "YAML",
	".yml": "YAML", ".toml": "TOML", ".xml": "XML", ".proto": "Protocol Buffers", ".tf": "Terraform",
	".gradle": "Gradle", ".cmake": "CMake", ".sol": "Solidity", ".pl": "Perl", ".groovy": "Groovy",
}

// buildFiles are the file names analyze_project reports as build or
// project files.
var buildFiles = []string{
	"go.mod", "go.work", "package.json", "pnpm-workspace.yaml", "Cargo.toml", "pyproject.toml", "setup.py",
	"setup.cfg", "requirements.txt", "Pipfile", "tox.ini", "pytest.ini", "Makefile", "GNUmakefile", "CMakeLists.txt",
	"meson.build", "build.gradle", "build.gradle.kts", "settings.gradle", "pom.xml", "build.sbt", "Gemfile",
	"Rakefile", "composer.json", "mix.exs", "deno.json", "deno.jsonc", "Package.swift", "pubspec.yaml",
	"justfile", "Justfile", "Taskfile.yml", "Dockerfile", "docker-compose.yml", "compose.yaml", "flake.nix",
	"BUILD.bazel", "WORKSPACE", "MODULE.bazel", "stack.yaml", "dune-project", "build.zig",
}

// projectScan is what one walk of the workspace collects.
type projectScan struct {
	lim        analyzeLimits
	mu         sync.Mutex
	langs      map[string]*extGroup // by language name
	files      int
	lines      int
	unread     int            // text files whose lines were not counted (budget, size, binary)
	overBudget int            // of them, those past the reading budget
	dirFiles   map[string]int // files under each directory at depth 1 and 2 (slash rel)
	subdirs    map[string][]string
	rootFiles  []string
	rootDirs   []string
	builds     []string // slash rel paths of build files
	truncated  bool
	budget     atomic.Int64
	visited    atomic.Int64
	timedOut   bool
	ciWorkflow bool
}

func (s *projectScan) visit(ctx context.Context, abs, rel string, d fs.DirEntry) error {
	depth := strings.Count(rel, "/")
	if d.IsDir() {
		return s.visitDir(rel, depth)
	}
	if s.visited.Add(1) > s.lim.maxFiles {
		return errWalkLimit // for a file, this ends its directory's walk (see walk.ErrStop)
	}
	name := path.Base(rel)
	lang := languageByExt[strings.ToLower(path.Ext(name))]
	lines, counted, overBudget := -1, false, false
	if lang != "" {
		lines, counted, overBudget = s.countLines(ctx, abs, d)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if overBudget {
		s.overBudget++
	}
	s.files++
	if depth == 0 {
		s.rootFiles = append(s.rootFiles, rel)
	}
	for dir := path.Dir(rel); dir != "."; dir = path.Dir(dir) {
		if strings.Count(dir, "/") <= 1 {
			s.dirFiles[dir]++
		}
	}
	if depth <= analyzeBuildFileSpan && slices.Contains(buildFiles, name) {
		s.builds = append(s.builds, rel)
	}
	if lang == "" {
		return nil
	}
	g := s.langs[lang]
	if g == nil {
		g = &extGroup{ext: lang}
		s.langs[lang] = g
	}
	g.files++
	if counted {
		g.lines += lines
		s.lines += lines
	} else {
		s.unread++
	}
	return nil
}

// visitDir records a directory; past the file limit it stops the walk.
func (s *projectScan) visitDir(rel string, depth int) error {
	if s.visited.Load() > s.lim.maxFiles {
		return errWalkLimit // for a directory, this stops the whole walk
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch depth {
	case 0:
		s.rootDirs = append(s.rootDirs, rel)
	case 1:
		parent := path.Dir(rel)
		s.subdirs[parent] = append(s.subdirs[parent], path.Base(rel))
	}
	if rel == ".github/workflows" {
		s.ciWorkflow = true
	}
	return nil
}

// countLines counts the lines of a source file within the reading
// budget; overBudget reports a file skipped because the budget ran out.
func (s *projectScan) countLines(ctx context.Context, abs string, d fs.DirEntry) (lines int, counted, overBudget bool) {
	info, err := d.Info()
	if err != nil || !d.Type().IsRegular() || info.Size() > analyzeMaxLineFile {
		return -1, false, false
	}
	if s.budget.Add(-info.Size()) < 0 {
		return -1, false, true
	}
	if c, err := countFileLines(ctx, abs); err == nil && !c.binary {
		return c.lines, true, false
	}
	return -1, false, false
}

func (s *projectScan) report(root string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Project at %s: %d files (.gitignore honoured), %d lines of code and text counted\n", root, s.files, s.lines)
	if s.truncated {
		fmt.Fprintf(&b, "[stopped after %d files: the numbers are lower bounds]\n", s.lim.maxFiles)
	}
	if s.timedOut {
		fmt.Fprintf(&b, "[stopped after %s: the numbers are lower bounds]\n", s.lim.timeout)
	}
	s.writeLanguages(&b)
	slices.Sort(s.builds)
	if len(s.builds) > 0 {
		fmt.Fprintf(&b, "\nBuild and project files: %s\n", strings.Join(s.builds, ", "))
	}
	if s.ciWorkflow {
		b.WriteString("CI: GitHub Actions (.github/workflows)\n")
	}
	if cmds := guessCommands(root, s.builds); len(cmds) > 0 {
		b.WriteString("\nLikely commands (guessed from the build files):\n")
		for _, c := range cmds {
			fmt.Fprintf(&b, "  %s\n", c)
		}
	}
	s.writeLayout(&b)
	return b.String()
}

func (s *projectScan) writeLanguages(b *strings.Builder) {
	list := make([]*extGroup, 0, len(s.langs))
	for _, g := range s.langs {
		list = append(list, g)
	}
	if len(list) == 0 {
		return
	}
	slices.SortFunc(list, func(x, y *extGroup) int {
		return cmp.Or(cmp.Compare(y.lines, x.lines), cmp.Compare(y.files, x.files), cmp.Compare(x.ext, y.ext))
	})
	b.WriteString("\nLanguages (by lines):\n")
	for i, g := range list {
		if i == analyzeTopLanguages {
			fmt.Fprintf(b, "  ... %d more\n", len(list)-i)
			break
		}
		fmt.Fprintf(b, "  %-18s %7d files %9d lines\n", g.ext, g.files, g.lines)
	}
	if s.unread > 0 {
		fmt.Fprintf(b, "  (%d files not line-counted", s.unread)
		if s.overBudget > 0 {
			fmt.Fprintf(b, ": %d past the %s read for line counts, %d larger than %s or binary",
				s.overBudget, humanBytes(s.lim.lineBudget), s.unread-s.overBudget, humanBytes(analyzeMaxLineFile))
		} else {
			fmt.Fprintf(b, ": larger than %s or binary", humanBytes(analyzeMaxLineFile))
		}
		b.WriteString(")\n")
	}
}

func (s *projectScan) writeLayout(b *strings.Builder) {
	b.WriteString("\nLayout (top levels):\n")
	slices.Sort(s.rootDirs)
	for _, d := range s.rootDirs {
		fmt.Fprintf(b, "  %s/ (%d files)\n", d, s.dirFiles[d])
		subs := s.subdirs[d]
		slices.Sort(subs)
		for i, sd := range subs {
			if i == analyzeSubdirs {
				fmt.Fprintf(b, "    ... %d more directories\n", len(subs)-i)
				break
			}
			fmt.Fprintf(b, "    %s/ (%d files)\n", sd, s.dirFiles[d+"/"+sd])
		}
	}
	slices.Sort(s.rootFiles)
	for i, f := range s.rootFiles {
		if i == analyzeTopFiles {
			fmt.Fprintf(b, "  ... %d more files\n", len(s.rootFiles)-i)
			break
		}
		fmt.Fprintf(b, "  %s\n", f)
	}
}
