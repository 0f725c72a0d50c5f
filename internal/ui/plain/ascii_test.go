package plain

import (
	"bytes"
	"testing"
)

func TestUTF8Locale(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, true},
		{map[string]string{"LANG": "en_US.UTF-8"}, true},
		{map[string]string{"LANG": "de_DE.utf8"}, true},
		{map[string]string{"LANG": "C"}, false},
		{map[string]string{"LC_ALL": "POSIX", "LANG": "en_US.UTF-8"}, false},
		{map[string]string{"LC_CTYPE": "en_US.ISO-8859-1", "LANG": "en_US.UTF-8"}, false},
		{map[string]string{"LC_ALL": "C.UTF-8", "LANG": "C"}, true},
	} {
		if got := UTF8Locale(func(k string) string { return c.env[k] }); got != c.want {
			t.Errorf("%v: %v, want %v", c.env, got, c.want)
		}
	}
}

func TestUseASCII(t *testing.T) {
	var b bytes.Buffer
	r := New(bytes.NewReader(nil), &b, false)
	r.UseASCII()
	r.Printer.Line("✓ done · → next…")
	if got := b.String(); got != "ok done | -> next...\n" {
		t.Errorf("got %q", got)
	}
}
