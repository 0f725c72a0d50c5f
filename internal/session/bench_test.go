package session

import (
	"context"
	"testing"

	"github.com/zelvior/aidex/internal/llm"
)

// BenchmarkOpenClose measures opening an existing, current database and
// closing it, with one query in between (a real command does at least one).
func BenchmarkOpenClose(b *testing.B) {
	dir := b.TempDir()
	ctx := context.Background()
	s, err := Open(ctx, dir)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.Create(ctx, "/w", "p", "m"); err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		s, err := Open(ctx, dir)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.List(ctx, ListOptions{All: true, Limit: 1}); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenCreate measures creating and migrating a new database.
func BenchmarkOpenCreate(b *testing.B) {
	ctx := context.Background()
	for b.Loop() {
		s, err := Open(ctx, b.TempDir())
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendMessage measures saving one assistant message with a tool
// call and usage (one fsynced transaction each).
func BenchmarkAppendMessage(b *testing.B) {
	s, _ := openTest(b)
	ctx := context.Background()
	sess := newSession(b, s, "/w")
	m := conversation()[1]
	u := &llm.Usage{InputTokens: 1200, OutputTokens: 80}
	b.ResetTimer()
	for b.Loop() {
		if err := s.AppendMessage(ctx, sess.ID, m, u); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoad measures loading a session of 200 messages.
func BenchmarkLoad(b *testing.B) {
	s, _ := openTest(b)
	ctx := context.Background()
	sess := newSession(b, s, "/w")
	msgs := conversation()
	for i := 0; i < 50; i++ {
		for _, m := range msgs {
			if err := s.AppendMessage(ctx, sess.ID, m, nil); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Load(ctx, sess.ID); err != nil {
			b.Fatal(err)
		}
	}
}
