package app

import (
	"fmt"
	"strconv"
	"strings"
)

// ParseKeep reads the answer to a parallel turn's "keep which answer?"
// for n answers, as the line mode's line and the terminal UI's key give
// it: "" (Enter) keeps the first, "a" or "all" (any case) keeps every
// one, a number 1..n keeps that one. It returns 0-based indexes into the
// answers, in order. Errors: anything else, naming what to type.
func ParseKeep(answer string, n int) ([]int, error) {
	answer = strings.ToLower(strings.TrimSpace(answer))
	switch answer {
	case "":
		return []int{0}, nil
	case "a", "all":
		return KeepAll(n), nil
	}
	k, err := strconv.Atoi(answer)
	if err != nil || k < 1 || k > n {
		return nil, fmt.Errorf("answer a number from 1 to %d, or a", n)
	}
	return []int{k - 1}, nil
}

// KeepAll is the choice that keeps every one of n answers: 0..n-1.
func KeepAll(n int) []int {
	keep := make([]int, n)
	for i := range keep {
		keep[i] = i
	}
	return keep
}

// CheckKeep checks a choice of 0-based indexes (the web API's "keep")
// against n answers. Errors: an index out of range, naming it.
func CheckKeep(keep []int, n int) error {
	for _, k := range keep {
		if k < 0 || k >= n {
			return fmt.Errorf("keep: %d is not one of the %d answers (0-based)", k, n)
		}
	}
	return nil
}
