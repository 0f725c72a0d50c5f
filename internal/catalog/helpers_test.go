package catalog

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// checks is a small stand-in for testify's require (testify's yaml
// dependency is not in go.sum): every method stops the test on failure.
type checks struct{}

var require checks

func msg(args []any) string {
	if len(args) == 0 {
		return ""
	}
	if f, ok := args[0].(string); ok {
		return ": " + fmt.Sprintf(f, args[1:]...)
	}
	return ": " + fmt.Sprint(args...)
}

func (checks) NoError(t testing.TB, err error, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("unexpected error: %v%s", err, msg(args))
	}
}

func (checks) Error(t testing.TB, err error, args ...any) {
	t.Helper()
	if err == nil {
		t.Fatalf("expected an error%s", msg(args))
	}
}

func (checks) ErrorContains(t testing.TB, err error, sub string, args ...any) {
	t.Helper()
	if err == nil || !strings.Contains(err.Error(), sub) {
		t.Fatalf("error %v does not contain %q%s", err, sub, msg(args))
	}
}

func (checks) ErrorIs(t testing.TB, err, target error, args ...any) {
	t.Helper()
	if !errors.Is(err, target) {
		t.Fatalf("error %v is not %v%s", err, target, msg(args))
	}
}

func (checks) Equal(t testing.TB, want, got any, args ...any) {
	t.Helper()
	if !reflect.DeepEqual(want, got) {
		t.Fatalf("not equal%s\nwant: %#v\n got: %#v", msg(args), want, got)
	}
}

func (checks) True(t testing.TB, v bool, args ...any) {
	t.Helper()
	if !v {
		t.Fatalf("expected true%s", msg(args))
	}
}

func (checks) False(t testing.TB, v bool, args ...any) {
	t.Helper()
	if v {
		t.Fatalf("expected false%s", msg(args))
	}
}

func isEmpty(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map, reflect.String, reflect.Array, reflect.Chan:
		return rv.Len() == 0
	case reflect.Pointer, reflect.Interface:
		return rv.IsNil()
	}
	return rv.IsZero()
}

func (checks) Empty(t testing.TB, v any, args ...any) {
	t.Helper()
	if !isEmpty(v) {
		t.Fatalf("expected empty, got %#v%s", v, msg(args))
	}
}

func (checks) NotEmpty(t testing.TB, v any, args ...any) {
	t.Helper()
	if isEmpty(v) {
		t.Fatalf("expected non-empty%s", msg(args))
	}
}

func isNil(v any) bool {
	if v == nil {
		return true
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map, reflect.Func, reflect.Chan:
		return rv.IsNil()
	}
	return false
}

func (checks) Nil(t testing.TB, v any, args ...any) {
	t.Helper()
	if !isNil(v) {
		t.Fatalf("expected nil, got %#v%s", v, msg(args))
	}
}

func (checks) NotNil(t testing.TB, v any, args ...any) {
	t.Helper()
	if isNil(v) {
		t.Fatalf("expected non-nil%s", msg(args))
	}
}

func (checks) Len(t testing.TB, v any, n int, args ...any) {
	t.Helper()
	if got := reflect.ValueOf(v).Len(); got != n {
		t.Fatalf("length %d, want %d%s", got, n, msg(args))
	}
}

func contained(container, elem any) bool {
	if s, ok := container.(string); ok {
		sub, ok := elem.(string)
		return ok && strings.Contains(s, sub)
	}
	rv := reflect.ValueOf(container)
	if rv.Kind() != reflect.Slice && rv.Kind() != reflect.Array {
		return false
	}
	for i := range rv.Len() {
		if reflect.DeepEqual(rv.Index(i).Interface(), elem) {
			return true
		}
	}
	return false
}

func (checks) Contains(t testing.TB, container, elem any, args ...any) {
	t.Helper()
	if !contained(container, elem) {
		t.Fatalf("%#v does not contain %#v%s", container, elem, msg(args))
	}
}

func (checks) NotContains(t testing.TB, container, elem any, args ...any) {
	t.Helper()
	if contained(container, elem) {
		t.Fatalf("%#v contains %#v%s", container, elem, msg(args))
	}
}

func (checks) GreaterOrEqual(t testing.TB, a, b float64, args ...any) {
	t.Helper()
	if a < b {
		t.Fatalf("%v < %v%s", a, b, msg(args))
	}
}
