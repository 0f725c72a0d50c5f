package agent

import "github.com/zelvior/aidex/internal/ctrlchar"

// ShowControls is the command line an approval shows: the characters
// that can hide what it does (ctrlchar.IsHiding, the set the policy asks
// about) as escapes (`\r`, `\x1b`, `\u202e`), so a carriage return cannot
// paint a harmless command over the real one.
func ShowControls(s string) string { return ctrlchar.Escape(s) }
