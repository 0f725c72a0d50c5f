package app

import (
	"slices"

	"github.com/zelvior/aidex/internal/permission"
)

// Modes returns the permission modes from the narrowest to the widest:
// plan, ask, auto-edit, yolo (the one order every front end compares and
// lists modes by).
func Modes() []string {
	ms := permission.Modes()
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = string(m)
	}
	return out
}

// ModeWider reports whether permission mode a lets more run without
// asking than mode b (both canonical, as ParseMode returns them; an
// unknown mode is narrower than every known one).
func ModeWider(a, b string) bool {
	return slices.Index(Modes(), a) > slices.Index(Modes(), b)
}
