package tools

import (
	"context"
	"fmt"
	"io/fs"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/zelvior/aidex/internal/kind"
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

func replaceTools() []Def {
	return []Def{
		Define(Spec{Name: "find_replace_in_files", Kind: kind.Write,
			Description: "Replace text in many files (honours .gitignore). Try dry_run=true first.", DryRun: true},
			func(ctx context.Context, env *Env, a findReplaceArgs) Result { return findReplace(ctx, env, a) }),
	}
}

type replaced struct {
	tf    *textFile
	count int
	new   string
}

func findReplace(ctx context.Context, env *Env, a findReplaceArgs) Result {
	if a.Pattern == "" {
		return Failf(CategoryValidation, "find_replace_in_files: pattern is empty")
	}
	var re *regexp.Regexp
	if a.Regex {
		var err error
		if re, err = regexp.Compile("(?m)" + a.Pattern); err != nil {
			return Failf(CategoryValidation, "invalid regular expression (RE2 syntax): %v", err)
		}
	}
	var inc *globMatcher
	if a.Include != "" {
		var ok bool
		if inc, ok = newGlobMatcher(a.Include); !ok {
			return Failf(CategoryValidation, "invalid include glob %q: use e.g. *.go or src/**", a.Include)
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
		return Failf(CategoryExecution, "find_replace_in_files: %v", err)
	}
	where := env.rel(root)
	if len(changes) == 0 {
		return Success(fmt.Sprintf("No file under %s contains %q; nothing changed.", where, a.Pattern), &Meta{Path: where})
	}
	if len(changes) > maxReplaceFiles {
		return Failf(CategoryValidation, "the replacement would change %d files, more than %d: narrow path or include",
			len(changes), maxReplaceFiles)
	}
	if a.DryRun {
		return replaceSummary(changes, where, "Dry run: would replace", nil)
	}
	var skipped []string
	var done []replaced
	for _, c := range changes {
		if res := replaceOne(ctx, env, c); res != nil {
			skipped = append(skipped, fmt.Sprintf("%s: %s", c.tf.rel, res.Error))
			continue
		}
		done = append(done, c)
	}
	r := replaceSummary(done, where, "Replaced", skipped)
	if len(done) == 0 {
		r.OK, r.Category, r.Error = false, CategoryValidation, "no file was changed:\n"+strings.Join(skipped, "\n")
	}
	return r
}

// planReplace computes the new content of every text file under root that
// the replacement changes, sorted by path.
func planReplace(ctx context.Context, env *Env, root string, inc *globMatcher,
	apply func(string) (string, int)) ([]replaced, error) {
	var mu sync.Mutex
	var out []replaced
	// The policy approved root only: files in protected directories below
	// it (.aidex, .vscode, ...) always need their own approval.
	pw, _ := env.Workspace.(interface{ IsProtectedWrite(abs string) bool })
	guard := pw != nil && !pw.IsProtectedWrite(root)
	err := walkTree(ctx, root, 0, func(abs, rel string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !inc.match(rel) || guard && pw.IsProtectedWrite(abs) {
			return nil
		}
		tf, res := loadText(env, abs, "")
		if res != nil {
			return nil // binary, oversized or unreadable: skipped
		}
		updated, n := apply(string(tf.content))
		if n == 0 || updated == string(tf.content) {
			return nil
		}
		mu.Lock()
		out = append(out, replaced{tf: tf, count: n, new: updated})
		mu.Unlock()
		return nil
	})
	slices.SortFunc(out, func(a, b replaced) int { return strings.Compare(a.tf.rel, b.tf.rel) })
	return out, err
}

// replaceOne writes one planned change. Files the model read before must
// not have changed since; files it never read are changed from their
// current content (the model did not base the change on a stale view) and
// stay unread afterwards.
func replaceOne(ctx context.Context, env *Env, c replaced) *Result {
	wasRead := false
	if env.Reads != nil && !env.SkipReadCheck {
		if _, ok, err := env.Reads.LastRead(ctx, c.tf.abs); err == nil && ok {
			wasRead = true
			if res := env.checkFresh(ctx, c.tf.abs, c.tf.content); res != nil {
				return res
			}
		}
	}
	_, res := env.commit(ctx, change{abs: c.tf.abs, old: c.tf.content, existed: true,
		new: []byte(c.new), perm: c.tf.info.Mode().Perm()})
	if res != nil {
		return res
	}
	if !wasRead {
		env.forget(ctx, c.tf.abs)
	}
	return nil
}

func replaceSummary(cs []replaced, where, verb string, skipped []string) Result {
	meta := &Meta{Path: where}
	var b, diffs strings.Builder
	total := 0
	for _, c := range cs {
		total += c.count
		meta.Files = append(meta.Files, c.tf.rel)
		if diffs.Len() < MaxDiffBytes {
			diffs.WriteString(makeDiff(c.tf.rel, string(c.tf.content), c.new))
		}
	}
	meta.Matches, meta.Diff = total, cutUTF8(diffs.String(), MaxDiffBytes)
	fmt.Fprintf(&b, "%s %d occurrence(s) in %d file(s):\n", verb, total, len(cs))
	for _, c := range cs {
		fmt.Fprintf(&b, "  %s (%d)\n", c.tf.rel, c.count)
	}
	if len(skipped) > 0 {
		fmt.Fprintf(&b, "Skipped %d file(s):\n  %s\n", len(skipped), strings.Join(skipped, "\n  "))
	}
	return Success(strings.TrimRight(b.String(), "\n"), meta)
}
