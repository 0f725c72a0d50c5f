package multi

import (
	"slices"
	"strconv"
	"strings"
	"testing"
)

// oldLineKeep is the line mode's parseKeep as it was before ParseKeep.
func oldLineKeep(s string, n int) ([]int, bool) {
	switch strings.ToLower(s) {
	case "":
		return []int{0}, true
	case "a", "all":
		keep := make([]int, n)
		for i := range keep {
			keep[i] = i
		}
		return keep, true
	}
	k, err := strconv.Atoi(s)
	if err != nil || k < 1 || k > n {
		return nil, false
	}
	return []int{k - 1}, true
}

// oldKeyKeep is the terminal UI's chooseKey as it was before ParseKeep
// (Enter came as "enter"; Esc, which stops the turn, is not an answer).
func oldKeyKeep(key string, n int) ([]int, bool) {
	var keep []int
	switch {
	case key == "a":
		for i := 0; i < n; i++ {
			keep = append(keep, i)
		}
	case key == "enter":
		keep = []int{0}
	default:
		k, err := strconv.Atoi(key)
		if err != nil || k < 1 || k > n {
			return nil, false
		}
		keep = []int{k - 1}
	}
	return keep, true
}

// ParseKeep replaces the line mode's parseKeep and the terminal UI's
// chooseKey, which parsed the same answer twice: every answer either
// accepted keeps the same answers now, and what the line mode refused is
// refused.
func TestParseKeepKeepsTheOldAnswers(t *testing.T) {
	inputs := []string{"", "a", "A", "all", "ALL", "1", "2", "3", "4", "0", "-1", "x", "1 2", "+2", "02", "aa"}
	for _, n := range []int{1, 2, 3} {
		for _, in := range inputs {
			got, err := ParseKeep(in, n)
			if want, ok := oldLineKeep(in, n); ok != (err == nil) || !slices.Equal(got, want) {
				t.Errorf("ParseKeep(%q, %d) = %v, %v; the line mode kept %v (%v)", in, n, got, err, want, ok)
			}
			key := in // the TUI passes Enter as ""
			if in == "" {
				key = "enter"
			}
			if want, ok := oldKeyKeep(key, n); ok && (err != nil || !slices.Equal(got, want)) {
				t.Errorf("ParseKeep(%q, %d) = %v, %v; the TUI's key kept %v", in, n, got, err, want)
			}
		}
	}
	if _, err := ParseKeep("9", 2); err == nil || err.Error() != "answer a number from 1 to 2, or a" {
		t.Errorf("error %v", err)
	}
}

// The web API's keep list is checked by the same rule.
func TestCheckKeep(t *testing.T) {
	if err := CheckKeep([]int{0, 2}, 3); err != nil {
		t.Error(err)
	}
	for _, bad := range [][]int{{3}, {-1}, {0, 5}} {
		if err := CheckKeep(bad, 3); err == nil || !strings.Contains(err.Error(), "is not one of the 3 answers") {
			t.Errorf("CheckKeep(%v): %v", bad, err)
		}
	}
	if got := KeepAll(3); !slices.Equal(got, []int{0, 1, 2}) {
		t.Errorf("KeepAll(3) = %v", got)
	}
}
