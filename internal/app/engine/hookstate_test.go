package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// A session's exported variables sit over its service's, a later export
// replacing in place.
func TestHookStateEnviron(t *testing.T) {
	for _, tc := range []struct {
		name      string
		base, own [][]string
		want      []string
	}{
		{"empty", nil, nil, nil},
		{"base only", [][]string{{"A=1"}}, nil, []string{"A=1"}},
		{"own over base", [][]string{{"A=1", "B=2"}}, [][]string{{"B=3", "C=4"}}, []string{"A=1", "B=3", "C=4"}},
		{"later export in place", nil, [][]string{{"A=1", "B=2"}, {"A=5"}}, []string{"A=5", "B=2"}},
	} {
		base := &HookState{}
		own := &HookState{Base: base}
		for _, v := range tc.base {
			base.AddEnv(v)
		}
		for _, v := range tc.own {
			own.AddEnv(v)
		}
		if got := own.Environ(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	var none *HookState
	none.AddEnv([]string{"A=1"})
	if none.Environ() != nil {
		t.Error("a nil state holds variables")
	}
}

// The transcripts temp folder goes with its scope; a folder a command
// put in its place is left alone.
func TestHookStateCloseRemovesTheTempFolder(t *testing.T) {
	h := &HookState{}
	dir, err := h.transcripts()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "s.jsonl"), []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if again, _ := h.transcripts(); again != dir {
		t.Errorf("a second call made another folder: %s, %s", dir, again)
	}
	h.Close()
	if _, err := os.Stat(dir); err == nil {
		t.Errorf("%s is left after close", dir)
	}

	h = &HookState{}
	dir, _ = h.transcripts()
	other := t.TempDir()
	if err := os.Remove(dir); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(other, dir); err != nil {
		t.Fatal(err)
	}
	h.Close()
	if _, err := os.Stat(other); err != nil {
		t.Errorf("close followed a replaced folder: %v", err)
	}
	_ = os.Remove(dir)
}
