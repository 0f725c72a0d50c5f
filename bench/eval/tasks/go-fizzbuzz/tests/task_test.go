package task

import (
	"strings"
	"testing"
)

func TestFizzBuzz(t *testing.T) {
	got := strings.Join(FizzBuzz(15), ",")
	want := "1,2,Fizz,4,Buzz,Fizz,7,8,Fizz,Buzz,11,Fizz,13,14,FizzBuzz"
	if got != want {
		t.Errorf("got %s", got)
	}
	if len(FizzBuzz(0)) != 0 {
		t.Error("FizzBuzz(0) is empty")
	}
}
