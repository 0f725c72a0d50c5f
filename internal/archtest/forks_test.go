package archtest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/semver"
)

// A patched copy of a library under third_party/ is aidex's own code to
// keep up to date by hand (issue 40), so each must say what it is and why
// it exists: its PATCHES.md opens with "# MODULE VERSION, patched for
// aidex" naming exactly the version go.mod requires (a copy of an older
// release would silently downgrade the library), and has a "## Why a fork
// (measured)" section with the measured reason and a "## Upstream status"
// section. Every folder of third_party/ is a go.mod replace target, and
// every replace into third_party/ has its folder.

// goModForks reads go.mod's requirements (module → version), its replaces
// into ./third_party/ (module → folder name) and its replaces of a module
// by another version of itself (module → version).
func goModForks(t *testing.T, root string) (requires, forks, pins map[string]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	requires, forks, pins = map[string]string{}, map[string]string{}, map[string]string{}
	inRequire := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if i := strings.Index(line, "//"); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		fields := strings.Fields(line)
		switch {
		case line == "require (":
			inRequire = true
		case inRequire && line == ")":
			inRequire = false
		case inRequire && len(fields) == 2:
			requires[fields[0]] = fields[1]
		case len(fields) == 3 && fields[0] == "require":
			requires[fields[1]] = fields[2]
		case len(fields) >= 4 && fields[0] == "replace":
			target := fields[len(fields)-1]
			if dir, ok := strings.CutPrefix(target, "./third_party/"); ok {
				forks[fields[1]] = dir
			}
			if len(fields) == 5 && fields[2] == "=>" && fields[3] == fields[1] {
				pins[fields[1]] = fields[4]
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return requires, forks, pins
}

var measured = regexp.MustCompile(`[0-9]`)

func TestForksMatchGoModAndSayWhy(t *testing.T) {
	root := moduleRoot(t)
	requires, forks, _ := goModForks(t, root)
	if len(forks) == 0 {
		t.Fatal("no replace into ./third_party/ found in go.mod: is the parser broken?")
	}
	replaced := map[string]bool{}
	for mod, dir := range forks {
		replaced[dir] = true
		version, ok := requires[mod]
		if !ok {
			t.Errorf("go.mod replaces %s with third_party/%s but does not require it", mod, dir)
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, "third_party", dir, "PATCHES.md"))
		if err != nil {
			t.Errorf("third_party/%s has no PATCHES.md: a fork states its version, its measured reason and upstream's status", dir)
			continue
		}
		checkPatches(t, dir, mod, version, string(data))
	}
	entries, err := os.ReadDir(filepath.Join(root, "third_party"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.IsDir() && !replaced[e.Name()] {
			t.Errorf("third_party/%s is not the target of a replace in go.mod: remove it or replace its module with it", e.Name())
		}
	}
}

// checkPatches checks one PATCHES.md against the version go.mod requires.
func checkPatches(t *testing.T, dir, mod, version, text string) {
	t.Helper()
	title, _, _ := strings.Cut(text, "\n")
	if want := "# " + mod + " " + version + ", patched for aidex"; title != want {
		t.Errorf("third_party/%s/PATCHES.md opens with %q, want %q: the copy must be the version go.mod requires (copy that release, or require the copied one)", dir, title, want)
	}
	why := section(text, "## Why a fork (measured)")
	if why == "" || !measured.MatchString(why) {
		t.Errorf("third_party/%s/PATCHES.md has no \"## Why a fork (measured)\" section with its measurement", dir)
	}
	if section(text, "## Upstream status") == "" {
		t.Errorf("third_party/%s/PATCHES.md has no \"## Upstream status\" section (the upstream release or pull request that would let the fork go)", dir)
	}
}

// section returns the text under the heading line head, up to the next
// "## " heading ("" when there is no such heading).
func section(text, head string) string {
	i := strings.Index(text, "\n"+head+"\n")
	if i < 0 {
		return ""
	}
	rest := text[i+len(head)+2:]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return strings.TrimSpace(rest)
}

// A replace of a required module by another of its versions must not be
// older than the version go.mod requires: the build would silently use the
// older release while go.mod and `go list -m` name the newer one (issue 40:
// go-runewidth was pinned to v0.0.24 under a requirement of v0.0.27).
func TestNoReplaceDowngradesARequirement(t *testing.T) {
	requires, _, pins := goModForks(t, moduleRoot(t))
	for mod, pinned := range pins {
		required, ok := requires[mod]
		if !ok {
			continue // a module go.mod does not require itself: nothing to downgrade
		}
		if semver.Compare(pinned, required) < 0 {
			t.Errorf("go.mod replaces %s %s with the older %s: require the version you build with, or drop the replace", mod, required, pinned)
		}
	}
}

func TestGoModPinsAreRead(t *testing.T) {
	dir := t.TempDir()
	mod := "module example.com/m\n\nreplace example.com/a => example.com/a v1.0.0\n\nrequire (\n\texample.com/a v1.2.0 // indirect\n)\n"
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte(mod), 0o600); err != nil {
		t.Fatal(err)
	}
	requires, _, pins := goModForks(t, dir)
	if requires["example.com/a"] != "v1.2.0" || pins["example.com/a"] != "v1.0.0" {
		t.Fatalf("requires %v, pins %v: want v1.2.0 required and v1.0.0 pinned", requires, pins)
	}
	if semver.Compare(pins["example.com/a"], requires["example.com/a"]) >= 0 {
		t.Fatal("v1.0.0 must compare older than v1.2.0")
	}
}
