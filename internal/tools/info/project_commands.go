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

// guessCommands derives build and test commands from the build files
// found (slash paths relative to root).
func guessCommands(root string, builds []string) []string {
	var out []string
	add := func(dir, kind, cmd string) {
		if dir != "." {
			kind += " (" + dir + ")"
			cmd = "cd " + dir + " && " + cmd
		}
		line := fmt.Sprintf("%-6s %s", kind+":", cmd)
		if !slices.Contains(out, line) {
			out = append(out, line)
		}
	}
	has := func(dir, name string) bool { return slices.Contains(builds, path.Join(dir, name)) }
	for _, bf := range builds {
		dir, name := path.Dir(bf), path.Base(bf)
		abs := filepath.Join(root, filepath.FromSlash(bf))
		switch name {
		case "go.mod":
			add(dir, "build", "go build ./...")
			add(dir, "test", "go test ./...")
		case "Cargo.toml":
			add(dir, "build", "cargo build")
			add(dir, "test", "cargo test")
		case "package.json":
			pm := "npm"
			switch {
			case has(dir, "pnpm-lock.yaml") || fileExists(filepath.Join(root, dir, "pnpm-lock.yaml")):
				pm = "pnpm"
			case fileExists(filepath.Join(root, dir, "yarn.lock")):
				pm = "yarn"
			case fileExists(filepath.Join(root, dir, "bun.lockb")) || fileExists(filepath.Join(root, dir, "bun.lock")):
				pm = "bun"
			}
			scripts := packageScripts(abs)
			for _, sc := range []string{"build", "test", "lint"} {
				if _, ok := scripts[sc]; ok {
					add(dir, sc, pm+" run "+sc)
				}
			}
		case "pyproject.toml", "setup.py", "setup.cfg", "pytest.ini":
			if name == "pytest.ini" || fileContains(abs, "pytest") || dirExists(filepath.Join(root, dir, "tests")) {
				add(dir, "test", "python3 -m pytest")
			}
		case "tox.ini":
			add(dir, "test", "tox")
		case "Makefile", "GNUmakefile":
			for _, t := range makeTargets(abs, "build", "test", "check", "lint") {
				add(dir, t, "make "+t)
			}
		case "justfile", "Justfile":
			for _, t := range makeTargets(abs, "build", "test") {
				add(dir, t, "just "+t)
			}
		case "CMakeLists.txt":
			add(dir, "build", "cmake -B build && cmake --build build")
			add(dir, "test", "ctest --test-dir build")
		case "pom.xml":
			add(dir, "test", "mvn test")
		case "build.gradle", "build.gradle.kts":
			gradle := "gradle"
			if fileExists(filepath.Join(root, dir, "gradlew")) {
				gradle = "./gradlew"
			}
			add(dir, "test", gradle+" test")
		case "build.sbt":
			add(dir, "test", "sbt test")
		case "Gemfile":
			if dirExists(filepath.Join(root, dir, "spec")) {
				add(dir, "test", "bundle exec rspec")
			} else {
				add(dir, "test", "bundle exec rake test")
			}
		case "composer.json":
			add(dir, "test", "vendor/bin/phpunit")
		case "mix.exs":
			add(dir, "test", "mix test")
		case "deno.json", "deno.jsonc":
			add(dir, "test", "deno test")
		case "Package.swift":
			add(dir, "test", "swift test")
		case "pubspec.yaml":
			add(dir, "test", "dart test")
		case "build.zig":
			add(dir, "test", "zig build test")
		case "stack.yaml":
			add(dir, "test", "stack test")
		case "dune-project":
			add(dir, "test", "dune test")
		}
	}
	return out
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
