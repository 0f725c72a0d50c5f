package session

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// idAlphabet is Crockford's base32 in lower case: no i, l, o, u, and its
// order matches byte order, so ids sort by creation time.
const idAlphabet = "0123456789abcdefghjkmnpqrstvwxyz"

// IDPrefix starts every session id.
const IDPrefix = "s_"

// newID returns a session id: IDPrefix, 10 base32 digits of the Unix time
// in milliseconds (sortable until the year 10889) and 8 random base32
// digits (40 bits), 20 characters in all.
func newID(t time.Time) string {
	var b [IDLength]byte
	copy(b[:], IDPrefix)
	ms := uint64(t.UnixMilli())
	for i := 11; i >= 2; i-- {
		b[i] = idAlphabet[ms&31]
		ms >>= 5
	}
	var r [8]byte
	_, _ = rand.Read(r[:]) // crypto/rand.Read never fails on supported platforms
	n := binary.BigEndian.Uint64(r[:])
	for i := IDLength - 1; i >= 12; i-- {
		b[i] = idAlphabet[n&31]
		n >>= 5
	}
	return string(b[:])
}

// IDLength is the length of a session id in bytes.
const IDLength = 20
