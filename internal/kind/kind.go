// Package kind is the one classification of tool calls shared by the tool
// registry (internal/tools), the permission policy (internal/permission)
// and the engine (internal/agent). It is a leaf: it imports nothing.
package kind

// Kind says what a tool call does; the permission policy decides by kind
// first (modes allow or ask per kind), then by rules.
type Kind string

// The tool kinds.
const (
	Read    Kind = "read"    // reads files or metadata only
	Write   Kind = "write"   // creates, changes or deletes files
	Exec    Kind = "exec"    // runs processes
	Network Kind = "network" // talks to the network
	Other   Kind = "other"   // anything else (session bookkeeping, info)
)

// Valid reports whether k is one of the kinds above.
func (k Kind) Valid() bool {
	switch k {
	case Read, Write, Exec, Network, Other:
		return true
	}
	return false
}
