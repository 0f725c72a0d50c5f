package archtest

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A patched copy of a library under third_party/ is aidex's own code to
// keep up to date by hand (issue 40), so each must say what it is and why
// it exists: its PATCHES.md opens with "# MODULE VERSION, patched for
// aidex" naming exactly the version go.mod requires (a copy of an older
// release would silently downgrade the library), and has a "## Why a fork
// (measured)" section with the measured reason and a "## Upstream status"
// section. Every folder of third_party/ is a go.mod replace target, and
// every replace into third_party/ has its folder.

// goModForks reads go.mod's requirements (module → version) and its
// replaces into ./third_party/ (module → folder name).
func goModForks(t *testing.T, root string) (requires, forks map[string]string) {
	t.Helper()
	f, err := os.Open(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	requires, forks = map[string]string{}, map[string]string{}
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
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return requires, forks
}

var measured = regexp.MustCompile(`[0-9]`)

func TestForksMatchGoModAndSayWhy(t *testing.T) {
	root := moduleRoot(t)
	requires, forks := goModForks(t, root)
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
