// Command docsmoved lists the lines of an older README.md that no page
// holds any more:
//
//	go run ./scripts/docsmoved [REV]
//
// Every non-empty line of the last one-page README (8ce97ea, before issue
// 35) must be in today's README.md or a page of docs/, link targets,
// heading levels and a docs/ prefix in link texts aside; it lists the
// ones that are not (a few were reworded on purpose as they moved). Given
// REV, a branch that wrote into the one-page README after that, it checks
// only the lines REV's README.md added to 8ce97ea's: after merging such a
// branch, they are the ones still to move into the topic page they
// belong to. It exits 1 when a line is missing, 2 when git cannot give a
// README.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
)

// linkTarget matches a Markdown link's target: the pages moved, so their
// links changed.
var linkTarget = regexp.MustCompile(`\]\([^)\s]+\)`)

// norm is a line as the check compares it.
func norm(line string) string {
	line = linkTarget.ReplaceAllString(line, "]()")
	line = strings.ReplaceAll(line, "[docs/", "[")
	return strings.TrimSpace(strings.TrimLeft(line, "#"))
}

func main() {
	const base = "8ce97ea"
	rev := base
	if len(os.Args) > 1 {
		rev = os.Args[1]
	}
	top, err := exec.Command("git", "rev-parse", "--show-toplevel").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "docsmoved: not in a git work tree:", err)
		os.Exit(2)
	}
	root := strings.TrimSpace(string(top))
	old := readme(root, rev)
	known := map[string]bool{}
	if rev != base {
		for _, l := range strings.Split(readme(root, base), "\n") {
			known[l] = true
		}
	}
	pages, _ := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	have := map[string]bool{}
	for _, p := range append([]string{filepath.Join(root, "README.md")}, pages...) {
		data, err := os.ReadFile(p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "docsmoved:", err)
			os.Exit(2)
		}
		for _, l := range strings.Split(string(data), "\n") {
			have[norm(l)] = true
		}
	}
	total := 0
	var missing []string
	for _, l := range strings.Split(old, "\n") {
		if strings.TrimSpace(l) == "" || known[l] {
			continue
		}
		total++
		if !have[norm(l)] {
			missing = append(missing, l)
		}
	}
	what := "non-empty lines"
	if rev != base {
		what = "non-empty lines added since " + base
	}
	fmt.Printf("%s:README.md: %d %s, %d on a page today, %d not\n", rev, total, what, total-len(missing), len(missing))
	for _, l := range missing {
		fmt.Println("  " + l)
	}
	if len(missing) > 0 {
		os.Exit(1)
	}
}

// readme returns rev's README.md, or exits 2.
func readme(root, rev string) string {
	out, err := exec.Command("git", "-C", root, "show", rev+":README.md").Output()
	if err != nil {
		fmt.Fprintf(os.Stderr, "docsmoved: git show %s:README.md: %v\n", rev, err)
		os.Exit(2)
	}
	return string(out)
}
