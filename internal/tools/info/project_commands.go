package info

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// command is one suggested command line: kind is build, test, lint, ...
type command struct{ kind, cmd string }

// fixedCommands are the commands a build file always suggests, by file
// name, in the order shown.
var fixedCommands = map[string][]command{
	"go.mod":         {{"build", "go build ./..."}, {"test", "go test ./..."}},
	"Cargo.toml":     {{"build", "cargo build"}, {"test", "cargo test"}},
	"tox.ini":        {{"test", "tox"}},
	"CMakeLists.txt": {{"build", "cmake -B build && cmake --build build"}, {"test", "ctest --test-dir build"}},
	"pom.xml":        {{"test", "mvn test"}},
	"build.sbt":      {{"test", "sbt test"}},
	"composer.json":  {{"test", "vendor/bin/phpunit"}},
	"mix.exs":        {{"test", "mix test"}},
	"deno.json":      {{"test", "deno test"}},
	"deno.jsonc":     {{"test", "deno test"}},
	"Package.swift":  {{"test", "swift test"}},
	"pubspec.yaml":   {{"test", "dart test"}},
	"build.zig":      {{"test", "zig build test"}},
	"stack.yaml":     {{"test", "stack test"}},
	"dune-project":   {{"test", "dune test"}},
}

// commandGuessers derive commands from a build file's content or its
// neighbours, by file name; they get the file's directory (slash, relative
// to the root), its name and its absolute path.
var commandGuessers = map[string]func(g *guesser, dir, name, abs string){
	"package.json":     (*guesser).packageJSON,
	"pyproject.toml":   (*guesser).pytest,
	"setup.py":         (*guesser).pytest,
	"setup.cfg":        (*guesser).pytest,
	"pytest.ini":       (*guesser).pytest,
	"Makefile":         (*guesser).makefile,
	"GNUmakefile":      (*guesser).makefile,
	"justfile":         (*guesser).justfile,
	"Justfile":         (*guesser).justfile,
	"build.gradle":     (*guesser).gradle,
	"build.gradle.kts": (*guesser).gradle,
	"Gemfile":          (*guesser).gemfile,
}

// guessCommands derives build and test commands from the build files
// found (slash paths relative to root), in the order of builds.
func guessCommands(root string, builds []string) []string {
	g := &guesser{root: root, builds: builds}
	for _, bf := range builds {
		dir, name := path.Dir(bf), path.Base(bf)
		for _, c := range fixedCommands[name] {
			g.add(dir, c.kind, c.cmd)
		}
		if guess := commandGuessers[name]; guess != nil {
			guess(g, dir, name, filepath.Join(root, filepath.FromSlash(bf)))
		}
	}
	return g.out
}

// guesser collects the suggested command lines.
type guesser struct {
	root   string
	builds []string
	out    []string
}

// add suggests cmd of kind, run in dir ("." is the root); duplicates are
// dropped.
func (g *guesser) add(dir, kind, cmd string) {
	if dir != "." {
		kind += " (" + dir + ")"
		cmd = "cd " + dir + " && " + cmd
	}
	line := fmt.Sprintf("%-6s %s", kind+":", cmd)
	if !slices.Contains(g.out, line) {
		g.out = append(g.out, line)
	}
}

// exists reports whether dir (slash, relative to the root) holds a
// regular file name.
func (g *guesser) exists(dir, name string) bool {
	return fileExists(filepath.Join(g.root, dir, name))
}

// packageJSON suggests the build, test and lint scripts of a package.json
// with the package manager its lock file names.
func (g *guesser) packageJSON(dir, _, abs string) {
	pm := "npm"
	switch {
	case slices.Contains(g.builds, path.Join(dir, "pnpm-lock.yaml")) || g.exists(dir, "pnpm-lock.yaml"):
		pm = "pnpm"
	case g.exists(dir, "yarn.lock"):
		pm = "yarn"
	case g.exists(dir, "bun.lockb") || g.exists(dir, "bun.lock"):
		pm = "bun"
	}
	scripts := packageScripts(abs)
	for _, sc := range []string{"build", "test", "lint"} {
		if _, ok := scripts[sc]; ok {
			g.add(dir, sc, pm+" run "+sc)
		}
	}
}

// pytest suggests pytest for a Python project that mentions it or has a
// tests directory.
func (g *guesser) pytest(dir, name, abs string) {
	if name == "pytest.ini" || fileContains(abs, "pytest") || dirExists(filepath.Join(g.root, dir, "tests")) {
		g.add(dir, "test", "python3 -m pytest")
	}
}

// makefile suggests the build, test, check and lint targets a Makefile
// defines.
func (g *guesser) makefile(dir, _, abs string) {
	for _, t := range makeTargets(abs, "build", "test", "check", "lint") {
		g.add(dir, t, "make "+t)
	}
}

// justfile suggests the build and test recipes a justfile defines.
func (g *guesser) justfile(dir, _, abs string) {
	for _, t := range makeTargets(abs, "build", "test") {
		g.add(dir, t, "just "+t)
	}
}

// gradle suggests the Gradle test task, through the wrapper when there
// is one.
func (g *guesser) gradle(dir, _, _ string) {
	gradle := "gradle"
	if g.exists(dir, "gradlew") {
		gradle = "./gradlew"
	}
	g.add(dir, "test", gradle+" test")
}

// gemfile suggests rspec when there is a spec directory, else rake test.
func (g *guesser) gemfile(dir, _, _ string) {
	if dirExists(filepath.Join(g.root, dir, "spec")) {
		g.add(dir, "test", "bundle exec rspec")
	} else {
		g.add(dir, "test", "bundle exec rake test")
	}
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

func dirExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

// readSmall reads at most 256 KiB of a regular file.
func readSmall(p string) []byte {
	f, err := os.Open(p)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, _ := io.ReadAll(io.LimitReader(f, 256<<10))
	return data
}

func fileContains(p, s string) bool { return strings.Contains(string(readSmall(p)), s) }

// packageScripts returns the "scripts" of a package.json.
func packageScripts(p string) map[string]string {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	_ = json.Unmarshal(readSmall(p), &pkg)
	return pkg.Scripts
}

// makeTargets returns which of the wanted targets (or just recipes) a
// Makefile/justfile defines at the start of a line ("test:", "test :").
func makeTargets(p string, wanted ...string) []string {
	var found []string
	sc := bufio.NewScanner(strings.NewReader(string(readSmall(p))))
	for sc.Scan() {
		line := sc.Text()
		for _, t := range wanted {
			rest, ok := strings.CutPrefix(line, t)
			rest = strings.TrimLeft(rest, " \t")
			if ok && strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, ":=") && !slices.Contains(found, t) {
				found = append(found, t)
			}
		}
	}
	return found
}
