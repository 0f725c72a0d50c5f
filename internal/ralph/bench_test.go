package ralph

import (
	"fmt"
	"testing"
)

func benchList(n int) *List {
	l := &List{}
	for i := range n {
		t := Task{ID: fmt.Sprintf("T-%03d", i+1), Title: fmt.Sprintf("task %d", i), Priority: Priority(fmt.Sprintf("P%d", i%4)),
			Status: StatusPending, AcceptanceCriteria: []string{"a", "b"}}
		if i > 0 {
			t.DependsOn = []string{fmt.Sprintf("T-%03d", i)}
		}
		l.Tasks = append(l.Tasks, t)
	}
	return l
}

// BenchmarkNext measures selection over a 1000-task list.
func BenchmarkNext(b *testing.B) {
	l := benchList(1000)
	for b.Loop() {
		Next(l.Tasks, nil)
	}
}

// BenchmarkParseList measures loading a 1000-task file.
func BenchmarkParseList(b *testing.B) {
	data, err := benchList(1000).encode()
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := parseList("bench", data); err != nil {
			b.Fatal(err)
		}
	}
}
