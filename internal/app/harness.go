package app

import (
	"context"
	"encoding/json"
	"fmt"
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
func (rt *Runtime) harness(o EngineOptions, policy *permission.Policy, reg *tools.Registry) agent.Harness {
	h := agent.Harness{FailureLoops: rt.Config.Harness.FailureLoops, EditFormat: rt.EditFormat(), ParallelReads: rt.Config.Harness.ParallelReads}
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
// reason. It runs as Ralph's verify_command does ([RalphBackend.Verify]:
// run_command's machinery, in the sandbox).
func (rt *Runtime) verifyCheck(policy *permission.Policy, reg *tools.Registry) *agent.VerifyCheck {
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
	b := &RalphBackend{Runtime: staticRuntime(rt)}
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
)

// EditFormat returns the model's edit format: [harness] edit_format, else
// [providers.NAME] edit_format, else the catalog's value for the model,
// else replace.
func (rt *Runtime) EditFormat() string {
	if f := rt.Config.Harness.EditFormat; f != "" {
		return f
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
// offers edit_lines instead of edit_file (unless [tools] enabled names
// edit_file).
func (rt *Runtime) withEditFormat(p tools.Profile) tools.Profile {
	if rt.EditFormat() != editHashline {
		return p
	}
	p.Enabled = append(slices.Clone(p.Enabled), "edit_lines")
	if !slices.Contains(p.Enabled, "edit_file") {
		p.Disabled = append(slices.Clone(p.Disabled), "edit_file")
	}
	return p
}

// hashlineNote tells the model the hashline edit format (the base prompt
// names edit_file, which hashline does not offer).
const hashlineNote = "Edit format: read_file shows each line as LINE#HASH|text (e.g. 12#a3f|return x). " +
	"Change existing files with edit_lines, giving the anchors LINE#HASH of the first (start) and last (end) line to replace, " +
	"or after = true to insert after start; edit_file is not offered. An anchor whose line changed is refused with the lines as they are now: " +
	"use the anchors of your latest read or edit result. Create files with write_file."
