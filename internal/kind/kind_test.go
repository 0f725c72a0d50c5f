package kind

import "testing"

func TestValid(t *testing.T) {
	for _, k := range []Kind{Read, Write, Exec, Network, Other} {
		if !k.Valid() {
			t.Errorf("%q: not valid", k)
		}
	}
	for _, k := range []Kind{"", "READ", "shell"} {
		if k.Valid() {
			t.Errorf("%q: valid, want invalid", k)
		}
	}
}
