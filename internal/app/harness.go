package app

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/zelvior/aidex/internal/agent"
	"github.com/zelvior/aidex/internal/eval"
	"github.com/zelvior/aidex/internal/permission"
	"github.com/zelvior/aidex/internal/tools"
)

// harness returns the engine's harness mechanisms (agent.Harness) for o
// under the run's policy and tools: [harness] of the configuration, the
// planning nudge for headless runs, and verify before finishing when o
// asks for it (docs/harness.md). A subagent's engine gets failure loops
// only: its parent plans and verifies.
func (rt engineRoom) harness(o engineOptions, policy *permission.Policy, reg *tools.Registry) agent.Harness {
	h := agent.Harness{FailureLoops: rt.Config.Harness.FailureLoops, EditFormat: rt.engineRoom().editFormat(), ParallelReads: rt.Config.Harness.ParallelReads,
		OutputHandles: rt.Config.Harness.OutputHandles}
	if o.Subagent {
		return h
	}
	if o.Verify {
		h.Verify = rt.verifyCheck(policy, reg)
	}
	if o.Headless {
		h.PlanAfter = rt.Config.Harness.PlanAfter
	}
	h.TimeNotes = rt.Config.Harness.TimeNotes
	return h
}

// verifyCheck is the check of verify before finishing: verify_command,
// else the detected test command (eval.DetectTestCommand) when the
// policy would let the model run it; otherwise no command, with the
// reason. It runs as Ralph's verify_command does ([ralphBackend.Verify]:
// run_command's machinery, in the sandbox).
func (rt engineRoom) verifyCheck(policy *permission.Policy, reg *tools.Registry) *agent.VerifyCheck {
	command := strings.TrimSpace(rt.Config.VerifyCommand)
	if command == "" {
		detected := eval.DetectTestCommand(rt.Workspace)
		if detected == "" {
			return &agent.VerifyCheck{Reason: "no verify_command, and no test command detected (go.mod, pyproject.toml, Cargo.toml, package.json with a test script)"}
		}
		if why := commandRefused(policy, reg, detected); why != "" {
			return &agent.VerifyCheck{Reason: fmt.Sprintf("detected `%s`, but the run's policy would not let the model run it (%s); "+
				"allow it (--allow 'run_command(%s)') or set verify_command", detected, why, detected)}
		}
		command = detected
	}
	b := &ralphBackend{Runtime: staticRuntime(rt.runtimeView)}
	return &agent.VerifyCheck{Command: command, Run: func(ctx context.Context) agent.VerifyResult {
		r := b.Verify(ctx, command, 0)
		out := agent.VerifyResult{OK: r.OK, ExitCode: r.ExitCode, Output: r.Output}
		if r.ExitCode < 0 || strings.Contains(r.Error, "sandbox") {
			out.Error = r.Error // it did not run to an exit, or the sandbox stopped it
		}
		return out
	}}
}

// commandRefused returns why policy would not run command as a
// run_command call without asking ("" when it allows it).
func commandRefused(policy *permission.Policy, reg *tools.Registry, command string) string {
	args, _ := json.Marshal(map[string]string{"command": command})
	p, err := reg.Prepare("run_command", args)
	if err != nil {
		return "run_command is not offered: " + err.Error()
	}
	v := policy.Check(permissionRequest(p))
	if v.Decision == permission.Allow {
		return ""
	}
	return fmt.Sprintf("%s by %s", v.Decision, v.Rule)
}

// The edit formats ([harness] edit_format).
const (
	editReplace  = "replace"  // edit_file: old_string/new_string
	editHashline = "hashline" // read_file shows LINE#HASH|text; edit_lines edits by anchors
	editPatch    = "patch"    // apply_patch: Codex's patch format
)

// editFormat returns the model's edit format: [harness] edit_format, else
// edit_format of the model's [providers.NAME.models.MODEL] table, else
// [providers.NAME] edit_format, else the catalog's value for the model,
// else replace.
func (rt engineRoom) editFormat() string {
	if f := rt.Config.Harness.EditFormat; f != "" {
		return f
	}
	if m, ok := rt.Config.ReasoningOf(rt.Provider.Name, rt.Model); ok && m.EditFormat != "" {
		return m.EditFormat
	}
	if p, ok := rt.Config.Providers[rt.Provider.Name]; ok && p.EditFormat != "" {
		return p.EditFormat
	}
	if m, ok := rt.Catalog.Model(rt.Provider.Name, rt.Model); ok && m.EditFormat != "" {
		return m.EditFormat
	}
	return editReplace
}

// withEditFormat adapts profile p to the model's edit format: hashline
// offers edit_lines, patch offers apply_patch, each instead of edit_file
// (unless [tools] enabled names edit_file).
func (rt engineRoom) withEditFormat(p tools.Profile) tools.Profile {
	tool := map[string]string{editHashline: "edit_lines", editPatch: "apply_patch"}[rt.engineRoom().editFormat()]
	if tool == "" {
		return p
	}
	p.Enabled = append(slices.Clone(p.Enabled), tool)
	if !slices.Contains(p.Enabled, "edit_file") {
		p.Disabled = append(slices.Clone(p.Disabled), "edit_file")
	}
	return p
}

// withOutputHandles offers read_output when [harness] output_handles is
// on (the tool reads the whole outputs the session saved).
func (rt engineRoom) withOutputHandles(p tools.Profile) tools.Profile {
	if rt.Config.Harness.OutputHandles {
		p.Enabled = append(slices.Clone(p.Enabled), "read_output")
	}
	return p
}

// outputStore is where the whole outputs of cut command results are
// saved with [harness] output_handles: STATE/outputs/SESSION (nil when
// the setting is off). A subagent saves into its root session's.
func (rt engineRoom) outputStore(o engineOptions) *tools.OutputStore {
	if !rt.Config.Harness.OutputHandles {
		return nil
	}
	id := o.SessionID
	if o.scope != nil && o.scope.rootSession != "" {
		id = o.scope.rootSession
	}
	if id == "" {
		id = "unsaved"
	}
	return &tools.OutputStore{Dir: filepath.Join(rt.Config.Paths.StateDir, "outputs", filepath.Base(id))}
}

// editFormatNote is the system prompt's note on the model's edit format
// ("" for replace, which the base prompt describes).
func (rt engineRoom) editFormatNote() string {
	switch rt.engineRoom().editFormat() {
	case editHashline:
		return hashlineNote
	case editPatch:
		return patchNote
	}
	return ""
}

// hashlineNote tells the model the hashline edit format (the base prompt
// names edit_file, which hashline does not offer).
const hashlineNote = "Edit format: read_file shows each line as LINE#HASH|text (e.g. 12#a3f|return x). " +
	"Change existing files with edit_lines, giving the anchors LINE#HASH of the first (start) and last (end) line to replace, " +
	"or after = true to insert after start; edit_file is not offered. An anchor whose line changed is refused with the lines as they are now: " +
	"use the anchors of your latest read or edit result. Create files with write_file."

// patchNote tells the model the patch edit format (Codex's apply_patch).
const patchNote = "Edit format: change files with apply_patch; its input is one patch, for example:\n" +
	"*** Begin Patch\n*** Update File: src/app.py\n@@ def greet():\n     name = user()\n-    print(\"Hi\")\n+    print(\"Hello\", name)\n" +
	"*** Add File: notes.txt\n+first line\n*** Delete File: old.txt\n*** End Patch\n" +
	"An update's chunks start with @@, optionally followed by a line that comes before the change (a function or class header); " +
	"their lines start with ' ' (unchanged context: about 3 lines around each change), '-' (removed) or '+' (added). " +
	"*** Move to: PATH right after *** Update File: renames the file; every line of an added file starts with '+'. " +
	"Paths are relative to the workspace; read a file before you update or delete it. " +
	"A patch whose lines are not found in the file changes nothing and says why. edit_file is not offered."
