package task

import "testing"

func TestAdd(t *testing.T) {
	for _, c := range [][3]int{{1, 2, 3}, {-4, 4, 0}, {0, 0, 0}} {
		if got := Add(c[0], c[1]); got != c[2] {
			t.Errorf("Add(%d, %d) = %d", c[0], c[1], got)
		}
	}
}
