package file

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
	"github.com/zelvior/aidex/internal/tools/walk"
)

// maxReplaceFiles: find_replace_in_files refuses to change more files.
const maxReplaceFiles = 200

type findReplaceArgs struct {
	Pattern     string `json:"pattern" jsonschema:"Text to find (regex if regex=true)"`
	Replacement string `json:"replacement" jsonschema:"Replacement ($1 groups with regex)"`
	Include     string `json:"include,omitempty" jsonschema:"File glob, e.g. *.go"`
	Regex       bool   `json:"regex,omitempty" jsonschema:"Pattern is RE2"`
	DryRun      bool   `json:"dry_run,omitempty" jsonschema:"Preview only"`
	Path        string `json:"path,omitempty" jsonschema:"Directory" tool:"path" default:"\".\""`
}

// findReplaceDef is find_replace_in_files: replace text across files.
func findReplaceDef() tools.Def {
	return tools.Define(tools.Spec{Name: "find_replace_in_files", Kind: kind.Write,
		Description: "Replace text in many files (honours .gitignore). Try dry_run=true first.", DryRun: true}, findReplace)
}

type replaced struct {
	tf    *tools.TextFile
	count int
	new   string
}

func findReplace(ctx context.Context, env *tools.Env, a findReplaceArgs) tools.Result {
	if a.Pattern == "" {
		return tools.Failf(tools.CategoryValidation, "find_replace_in_files: pattern is empty")
	}
	var re *regexp.Regexp
	if a.Regex {
		var err error
		if re, err = regexp.Compile("(?m)" + a.Pattern); err != nil {
			return tools.Failf(tools.CategoryValidation, "invalid regular expression (RE2 syntax): %v", err)
		}
	}
	var inc *walk.Glob
	if a.Include != "" {
		var ok bool
		if inc, ok = walk.NewGlob(a.Include); !ok {
			return tools.Failf(tools.CategoryValidation, "invalid include glob %q: use e.g. *.go or src/**", a.Include)
		}
	}
	root, res := dirOf(env, a.Path)
	if res != nil {
		return *res
	}
	changes, err := planReplace(ctx, env, root, inc, func(s string) (string, int) {
		if re != nil {
			return re.ReplaceAllString(s, a.Replacement), len(re.FindAllStringIndex(s, -1))
		}
		return strings.ReplaceAll(s, a.Pattern, a.Replacement), strings.Count(s, a.Pattern)
	})
	if err != nil {
		return tools.Failf(tools.CategoryExecution, "find_replace_in_files: %v", err)
	}
	where := env.Rel(root)
	if len(changes) == 0 {
		return tools.Success(fmt.Sprintf("No file under %s contains %q; nothing changed.", where, a.Pattern), &tools.Meta{Path: where})
	}
	if len(changes) > maxReplaceFiles {
		return tools.Failf(tools.CategoryValidation, "the replacement would change %d files, more than %d: narrow path or include",
			len(changes), maxReplaceFiles)
	}
	if a.DryRun {
		return replaceSummary(changes, where, "Dry run: would replace", nil)
	}
	var skipped []string
	var done []replaced
	for _, c := range changes {
		if res := replaceOne(ctx, env, c); res != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %s", c.tf.Rel, res.Error))
			continue
		}
		done = append(done, c)
	}
	r := replaceSummary(done, where, "Replaced", skipped)
	if len(done) == 0 {
		r.OK, r.Category, r.Error = false, tools.CategoryValidation, "no file was changed:\n"+strings.Join(skipped, "\n")
	}
	return r
}

// planReplace computes the new content of every text file under root that
// the replacement changes, sorted by path.
func planReplace(ctx context.Context, env *tools.Env, root string, inc *walk.Glob,
	apply func(string) (string, int)) ([]replaced, error) {
	var mu sync.Mutex
	var out []replaced
	// The policy approved root only: files in protected directories below
	// it (.aidex, .vscode, ...) always need their own approval.
	pw, _ := env.Workspace.(interface{ IsProtectedWrite(abs string) bool })
	guard := pw != nil && !pw.IsProtectedWrite(root)
	err := walk.Tree(ctx, root, 0, func(abs, rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !inc.Match(rel) || guard && pw.IsProtectedWrite(abs) {
			return nil
		}
		tf, res := tools.LoadText(env, abs, "")
		if res != nil {
			return nil // binary, oversized or unreadable: skipped
		}
		updated, n := apply(string(tf.Content))
		if n == 0 || updated == string(tf.Content) {
			return nil
		}
		mu.Lock()
		out = append(out, replaced{tf: tf, count: n, new: updated})
		mu.Unlock()
		return nil
	})
	slices.SortFunc(out, func(a, b replaced) int { return strings.Compare(a.tf.Rel, b.tf.Rel) })
	return out, err
}

// replaceOne writes one planned change. Files the model read before must
// not have changed since; files it never read are changed from their
// current content (the model did not base the change on a stale view) and
// stay unread afterwards.
func replaceOne(ctx context.Context, env *tools.Env, c replaced) *tools.Result {
	wasRead := false
	if env.Reads != nil && !env.SkipReadCheck {
		if _, ok, err := env.Reads.LastRead(ctx, c.tf.Abs); err == nil && ok {
			wasRead = true
			if res := env.CheckFresh(ctx, c.tf.Abs, c.tf.Content); res != nil {
				return res
			}
		}
	}
	_, res := env.Commit(ctx, tools.Change{Abs: c.tf.Abs, Old: c.tf.Content, Existed: true,
		New: []byte(c.new), Perm: c.tf.Info.Mode().Perm()})
	if res != nil {
		return res
	}
	if !wasRead {
		env.Forget(ctx, c.tf.Abs)
	}
	return nil
}

func replaceSummary(cs []replaced, where, verb string, skipped []string) tools.Result {
	meta := &tools.Meta{Path: where}
	var b, diffs strings.Builder
	total := 0
	for _, c := range cs {
		total += c.count
		meta.Files = append(meta.Files, c.tf.Rel)
		if diffs.Len() < tools.MaxDiffBytes {
			diffs.WriteString(tools.MakeDiff(c.tf.Rel, string(c.tf.Content), c.new))
		}
	}
	meta.Matches, meta.Diff = total, tools.CutUTF8(diffs.String(), tools.MaxDiffBytes)
	fmt.Fprintf(&b, "%s %d occurrence(s) in %d file(s):\n", verb, total, len(cs))
	for _, c := range cs {
		fmt.Fprintf(&b, "  %s (%d)\n", c.tf.Rel, c.count)
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "Skipped %d file(s):\n  %s\n", len(skipped), strings.Join(skipped, "\n  "))
	}
	return tools.Success(strings.TrimRight(b.String(), "\n"), meta)
}
