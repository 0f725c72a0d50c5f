package anthropic

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// Small assertion helpers (the standard library only, so the package's
// tests need no extra module).

func msgOf(args []any) string {
	if len(args) == 0 {
		return ""
	}
	return ": " + fmt.Sprint(args...)
}

func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%#v", v)
	}
	return string(b)
}

func mustEqual(t *testing.T, want, got any, msg ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("not equal%s\n got %s\nwant %s", msgOf(msg), show(got), show(want))
	}
}

// mustEqualValues compares numbers by value, whatever their Go types.
func mustEqualValues(t *testing.T, want, got any, msg ...any) {
	t.Helper()
	if fmt.Sprint(want) != fmt.Sprint(got) {
		t.Fatalf("not equal%s: got %v, want %v", msgOf(msg), got, want)
	}
}

func mustGreater(t *testing.T, a, b float64, msg ...any) {
	t.Helper()
	if a <= b {
		t.Fatalf("%v is not greater than %v%s", a, b, msgOf(msg))
	}
}

func mustLen[T any](t *testing.T, s []T, n int, msg ...any) {
	t.Helper()
	if len(s) != n {
		t.Fatalf("length %d, want %d%s: %s", len(s), n, msgOf(msg), show(s))
	}
}

func mustNotContains(t *testing.T, m any, key string, msg ...any) {
	t.Helper()
	mm, ok := m.(map[string]any)
	if !ok {
		t.Fatalf("not a JSON object: %s", show(m))
	}
	if _, has := mm[key]; has {
		t.Fatalf("has key %q%s: %s", key, msgOf(msg), show(m))
	}
}

func mustErrorContains(t *testing.T, err error, sub string) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), sub) {
		t.Fatalf("error %v, want one containing %q", err, sub)
	}
}

func mustNotNil(t *testing.T, v any) {
	t.Helper()
	if v == nil || reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil() {
		t.Fatal("got nil")
	}
}

func mustTrue(t *testing.T, ok bool, msg ...any) {
	t.Helper()
	if !ok {
		t.Fatalf("false%s", msgOf(msg))
	}
}

func mustZero[T comparable](t *testing.T, v T, msg ...any) {
	t.Helper()
	var zero T
	if v != zero {
		t.Fatalf("got %v, want zero%s", v, msgOf(msg))
	}
}
