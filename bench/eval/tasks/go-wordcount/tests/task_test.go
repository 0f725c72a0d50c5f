package task

import (
	"reflect"
	"testing"
)

func TestWordCount(t *testing.T) {
	got := WordCount("The cat; the DOG, the end.")
	want := map[string]int{"the": 3, "cat": 1, "dog": 1, "end": 1}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if len(WordCount("  ...  ")) != 0 {
		t.Error("no words: want an empty map")
	}
}
