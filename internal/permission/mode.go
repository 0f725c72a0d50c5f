package permission

import (
	"fmt"
	"strings"
)

// Mode is a permission mode.
type Mode string

// Permission modes.
const (
	// ModePlan allows read-only tools and the built-in read-only commands;
	// everything else is denied.
	ModePlan Mode = "plan"
	// ModeAsk (the default) allows reading inside the workspace and the
	// built-in read-only commands; every write and other command asks.
	ModeAsk Mode = "ask"
	// ModeAutoEdit also allows file changes inside the workspace; commands ask.
	ModeAutoEdit Mode = "auto-edit"
	// ModeYolo allows everything except deny rules, safe_mode denials,
	// protected paths (which ask), confinement, and lines the shell
	// analysis cannot see through (which ask).
	ModeYolo Mode = "yolo"
)

// Modes returns the valid modes in order of increasing trust.
func Modes() []Mode { return []Mode{ModePlan, ModeAsk, ModeAutoEdit, ModeYolo} }

// ParseMode parses a permission mode name: plan, ask (also "default"),
// auto-edit (also auto_edit, autoedit, accept-edits) or yolo. Empty means
// ask. The error lists the valid modes.
func ParseMode(s string) (Mode, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "plan":
		return ModePlan, nil
	case "", "ask", "default":
		return ModeAsk, nil
	case "auto-edit", "auto_edit", "autoedit", "accept-edits", "accept_edits":
		return ModeAutoEdit, nil
	case "yolo":
		return ModeYolo, nil
	}
	return "", fmt.Errorf("unknown permission mode %q: use plan, ask, auto-edit or yolo", s)
}
