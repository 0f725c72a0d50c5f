package commands

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/zelvior/aidex/internal/llm"
	"github.com/zelvior/aidex/internal/loader"
)

// isDocument reports whether data (the file called name) is for the
// loader rather than the text /load sends as the prompt: a PDF, office
// file, notebook, image or other binary.
func isDocument(name string, data []byte) bool {
	switch k, _ := loader.Sniff(name, data); k {
	case loader.KindText, loader.KindHTML, loader.KindCSV:
		return false
	}
	return true
}

// loadDocument queues a document or image (through the loader) for the
// next message and says so on out.
func loadDocument(ctx context.Context, c *Controller, path, name string, out io.Writer) (Outcome, error) {
	att, err := c.Runtime().LoadAttachment(ctx, path, name)
	if err != nil {
		return Outcome{}, fmt.Errorf("load: %w", err)
	}
	c.live.AddParts(att.Parts...)
	what := string(att.Kind)
	if att.Images > 0 {
		what += fmt.Sprintf(", %d image(s)", att.Images)
	}
	fmt.Fprintf(out, "loaded %s (%s): it goes to the model with your next message\n", att.Name, what)
	for _, n := range att.Notes {
		fmt.Fprintf(out, "  note: %s\n", n)
	}
	return Outcome{}, nil
}

// Budget of /load-project.
const (
	// projectTokens is the token budget of the files /load-project adds
	// (at 4 bytes a token): 32 000 tokens, at most a quarter of the
	// model's context window when that is known.
	projectTokens = 32_000
	// projectMaxFiles caps the files listed in the tree.
	projectMaxFiles = 2000
)

// cmdLoadProject queues the workspace's file tree (hidden and build
// folders left out) and the text files matching GLOB (default every file),
// smallest first, while they fit the token budget; it reports what it
// added and what it left out.
func cmdLoadProject(_ context.Context, c *Controller, arg string, out io.Writer) (Outcome, error) {
	glob := strings.TrimSpace(arg)
	if glob == "" {
		glob = "**"
	}
	if !doublestar.ValidatePattern(glob) {
		return Outcome{}, fmt.Errorf("load-project: %q is not a valid glob: write e.g. \"**/*.go\" or \"docs/*.md\"", glob)
	}
	rt := c.Runtime()
	files := ListFiles(rt.Workspace, projectMaxFiles)
	budget := projectTokens
	if w := rt.ModelInfo().ContextWindow; w > 0 {
		budget = min(budget, w/4)
	}
	var tree, body strings.Builder
	type cand struct {
		rel  string
		size int64
	}
	var picks []cand
	for _, f := range files {
		st, err := os.Stat(filepath.Join(rt.Workspace, filepath.FromSlash(f)))
		if err != nil {
			continue
		}
		fmt.Fprintf(&tree, "%s (%s)\n", f, loader.HumanSize(st.Size()))
		if ok, _ := doublestar.Match(glob, f); ok {
			picks = append(picks, cand{f, st.Size()})
		}
	}
	sort.SliceStable(picks, func(i, j int) bool { return picks[i].size < picks[j].size })
	used := len(tree.String()) / 4
	var added, left []string
	for _, p := range picks {
		data, err := fs.ReadFile(os.DirFS(rt.Workspace), p.rel)
		if err != nil || isDocument(p.rel, data) {
			continue
		}
		if used+len(data)/4 > budget {
			left = append(left, p.rel)
			continue
		}
		used += len(data) / 4
		fmt.Fprintf(&body, "\n<file path=%q>\n%s\n</file>", p.rel, strings.TrimRight(string(data), "\n"))
		added = append(added, p.rel)
	}
	if len(added) == 0 && len(picks) == 0 {
		return Outcome{}, fmt.Errorf("load-project: no file matches %q", glob)
	}
	c.live.AddParts(textPart(fmt.Sprintf("<project root=%q>\nFiles:\n%s</project>%s", filepath.Base(rt.Workspace), tree.String(), body.String())))
	fmt.Fprintf(out, "loaded the tree of %d files and %d file(s) (~%d of %d tokens): they go to the model with your next message\n", len(files), len(added), used, budget)
	if len(left) > 0 {
		fmt.Fprintf(out, "  left out (over the budget): %s\n", summarize(left, 10))
	}
	return Outcome{}, nil
}

// summarize lists up to n names and how many more there are.
func summarize(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

func textPart(s string) llm.Part { return llm.Part{Type: llm.PartText, Text: s} }
