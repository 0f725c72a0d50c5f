package notes

import (
	"time"

	"github.com/zelvior/aidex/internal/tools"
)

// Options configure Tools.
type Options struct {
	// Now is the clock giving a note its date (nil = time.Now).
	Now func() time.Time
}

// Tools returns the notes tools: create_note. Register them with
// tools.Registry.Register.
func Tools(o Options) []tools.Def {
	if o.Now == nil {
		o.Now = time.Now
	}
	return []tools.Def{o.createNoteDef()}
}
