package file

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/zelvior/aidex/internal/kind"
	"github.com/zelvior/aidex/internal/tools"
)

type patchArgs struct {
	Input string `json:"input" jsonschema:"The whole patch, from *** Begin Patch to *** End Patch"`
}

// applyPatchDef is apply_patch: the patch edit format's edit tool (Codex's
// apply_patch format). It is not in the standard profile: the application
// offers it instead of edit_file when the model's edit format is patch.
// The policy judges every path the patch names (PatchPaths).
func applyPatchDef() tools.Def {
	return tools.Define(tools.Spec{Name: "apply_patch", Kind: kind.Write, DryRun: true, PathsIn: PatchPaths,
		Description: "Add, update, move or delete files with one patch in apply_patch format (*** Begin Patch ... *** End Patch). A patch that does not apply changes nothing."}, applyPatch)
}

// PatchPaths returns the paths (headers and move targets) of the patch in
// apply_patch's canonical arguments, for the policy; nil when the patch
// does not parse (the tool then refuses it).
func PatchPaths(args json.RawMessage) []string {
	var a patchArgs
	if json.Unmarshal(args, &a) != nil {
		return nil
	}
	ops, err := parsePatch(a.Input)
	if err != nil {
		return nil
	}
	var out []string
	for _, op := range ops {
		out = append(out, op.path)
		if op.moveTo != "" {
			out = append(out, op.moveTo)
		}
	}
	return out
}

// patchStep is one planned file change of a patch: write (Change) and/or
// remove (an existing file, with its content for the checkpoint).
type patchStep struct {
	tag    string // A, M, D, R (the summary's letter)
	show   string // what the summary names
	write  *tools.Change
	remove string
	old    []byte
}

func applyPatch(ctx context.Context, env *tools.Env, a patchArgs) tools.Result {
	ops, err := parsePatch(a.Input)
	if err != nil {
		return tools.Failf(tools.CategoryValidation, "the patch was not applied: %v", err)
	}
	var steps []patchStep
	seen := map[string]bool{}
	loose := false
	for _, op := range ops {
		st, lax, res := planOp(ctx, env, op, seen)
		if res != nil {
			res.Error = fmt.Sprintf("the patch was not applied (nothing was changed): %s: %s", op.path, res.Error)
			return *res
		}
		steps, loose = append(steps, st), loose || lax
	}
	return commitPatch(ctx, env, steps, loose)
}

// planOp checks op against the files and returns its change, without
// writing anything. seen holds the files the patch already changes.
func planOp(ctx context.Context, env *tools.Env, op patchOp, seen map[string]bool) (patchStep, bool, *tools.Result) {
	abs, res := env.Resolve("path", op.path)
	if res != nil {
		return patchStep{}, false, res
	}
	if seen[abs] {
		return patchStep{}, false, failRes("the patch names this file twice: give all its changes in one section")
	}
	seen[abs] = true
	rel := env.Rel(abs)
	switch op.kind {
	case 'A':
		tf, res := existing(ctx, env, abs)
		if res != nil {
			return patchStep{}, false, res
		}
		c := &tools.Change{Abs: abs, New: []byte(op.text)}
		if tf != nil {
			c = &tools.Change{Abs: abs, Old: tf.Content, Existed: true, New: []byte(op.text), Perm: tf.Info.Mode().Perm()}
		}
		return patchStep{tag: "A", show: rel, write: c}, false, nil
	case 'D':
		tf, res := loadForEdit(ctx, env, op.path)
		if res != nil {
			return patchStep{}, false, res
		}
		return patchStep{tag: "D", show: rel, remove: abs, old: tf.Content}, false, nil
	}
	tf, res := loadForEdit(ctx, env, op.path)
	if res != nil {
		return patchStep{}, false, res
	}
	text, loose, err := patchedText(string(tf.Content), op.chunks)
	if err != nil {
		return patchStep{}, false, failRes(err.Error())
	}
	c := &tools.Change{Abs: abs, Old: tf.Content, Existed: true, New: []byte(text), Perm: tf.Info.Mode().Perm()}
	if op.moveTo == "" {
		if text == string(tf.Content) {
			return patchStep{}, false, failRes("the update changes nothing; check the - and + lines")
		}
		return patchStep{tag: "M", show: rel, write: c}, loose, nil
	}
	return planMove(env, op, c, seen, loose)
}

// planMove plans an update that moves the file to op.moveTo (which must
// not exist): write the new content there, remove the old file.
func planMove(env *tools.Env, op patchOp, c *tools.Change, seen map[string]bool, loose bool) (patchStep, bool, *tools.Result) {
	dst, res := env.Resolve("path", op.moveTo)
	if res != nil {
		return patchStep{}, false, res
	}
	if seen[dst] {
		return patchStep{}, false, failRes(fmt.Sprintf("the patch names %s twice", op.moveTo))
	}
	seen[dst] = true
	if _, err := env.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
		return patchStep{}, false, failRes(fmt.Sprintf("cannot move it to %s: that path exists", env.Rel(dst)))
	}
	old := c.Old
	w := &tools.Change{Abs: dst, New: c.New, Perm: c.Perm}
	return patchStep{tag: "R", show: env.Rel(c.Abs) + " -> " + env.Rel(dst), write: w, remove: c.Abs, old: old}, loose, nil
}

func failRes(msg string) *tools.Result {
	r := tools.Failf(tools.CategoryValidation, "%s", msg)
	return &r
}

// commitPatch writes the planned steps in order (a dry run only computes
// their diffs) and reports them as Codex does: a letter and a path a line.
func commitPatch(ctx context.Context, env *tools.Env, steps []patchStep, loose bool) tools.Result {
	var diffs, files, done []string
	for _, st := range steps {
		if st.write != nil {
			diff, res := env.Commit(ctx, *st.write)
			if res != nil {
				return partial(*res, done)
			}
			diffs, files = append(diffs, diff), append(files, env.Rel(st.write.Abs))
		}
		if st.remove != "" {
			rel := env.Rel(st.remove)
			if st.write == nil {
				diffs = append(diffs, tools.MakeDiff(rel, string(st.old), ""))
			}
			if !env.DryRun {
				if res := env.Checkpoint(ctx, st.remove, st.old, true); res != nil {
					return partial(*res, done)
				}
				if err := env.Remove(st.remove); err != nil {
					return partial(tools.Failf(tools.CategoryExecution, "cannot delete %s: %v", rel, err), done)
				}
				env.Forget(ctx, st.remove)
			}
			files = append(files, rel)
		}
		done = append(done, st.tag+" "+st.show)
	}
	out := "Applied the patch:\n" + strings.Join(done, "\n")
	if loose {
		out += "\n(Some lines matched only when white space or typographic quotes and dashes were ignored: check the result.)"
	}
	return tools.Success(out, &tools.Meta{Path: files[0], Diff: strings.Join(diffs, ""), Files: files})
}

// partial reports a failure after some files of the patch were written
// (they stay written, each with its checkpoint for /undo).
func partial(r tools.Result, done []string) tools.Result {
	if len(done) > 0 {
		r.Error += "\nThese changes of the patch were made before it stopped (/undo restores them):\n" + strings.Join(done, "\n")
	}
	return r
}
