package natsd

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The helper answers one line: the URL once the server listens (and it
// stops when its input ends), or the error for options it cannot use.
func TestMainHandshake(t *testing.T) {
	for _, c := range []struct {
		name, in, want string
		code           int
	}{
		{"no options", "", "no options on standard input", 1},
		{"not JSON", "hello\n", "aidex and aidex-nats must come from the same install", 1},
		{"no token", `{"host":"127.0.0.1","port":-1}` + "\n", "no token", 1},
		{"a server", `{"host":"127.0.0.1","port":-1,"token":"t","store_dir":"` + t.TempDir() + `"}` + "\n", "nats://127.0.0.1:", 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out bytes.Buffer
			if code := Main(strings.NewReader(c.in), &out); code != c.code {
				t.Errorf("exit code %d, want %d (answer %s)", code, c.code, out.String())
			}
			var r Ready
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("answer %q is not one JSON line: %v", out.String(), err)
			}
			if !strings.Contains(r.URL+r.Error, c.want) {
				t.Errorf("answer %+v, want it to hold %q", r, c.want)
			}
		})
	}
}
