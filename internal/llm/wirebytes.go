package llm

// Wire is the wire encoding of one stored message, as [WireCache.Encode]
// returns it and a [Spliced] body sends it: one or more comma-separated
// JSON values, or nothing. The zero value is the empty encoding.
//
// A cached encoding holds the message's long strings a second time, as
// their JSON escaping: sending it is a plain copy. (Issue 40 kept them
// packed for a while, as the message's own string and the places where
// the escaping differs: 4 MiB less at the peak of a 500-turn session, but
// reading them back cost ~0.2–0.5 ms a turn late in such a session, which
// the per-turn CPU target did not leave; docs/benchmarks.md.)
type Wire struct {
	b []byte
}

// WireBytes returns b as a Wire (b is not copied).
func WireBytes(b []byte) Wire { return Wire{b: b[:len(b):len(b)]} }

// Len returns the encoding's length in bytes.
func (w Wire) Len() int { return len(w.b) }

// empty reports whether the encoding has no bytes.
func (w Wire) empty() bool { return len(w.b) == 0 }

// Bytes returns the encoding (not a copy: do not write it).
func (w Wire) Bytes() []byte { return w.b }
