package loader_test

import (
	"context"
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/loader"
	"github.com/zelvior/aidex/internal/loader/loadertest"
)

// BenchmarkHostile loads every crafted file of hostile_test.go with the
// default limits. The time and memory bounds of issue 43 are read here,
// not asserted in tests: ns/op is the time to refuse (or cut) the file,
// MiB-alloc/op what it allocated in all, and peak-heap-MiB the most heap
// in use at once (sampled every millisecond).
//
//	go test -run '^$' -bench Hostile -benchtime 3x ./internal/loader/
func BenchmarkHostile(b *testing.B) {
	for _, c := range hostileCases {
		b.Run(c.name, func(b *testing.B) {
			benchLoad(b, c.file, c.gen())
		})
	}
}

// BenchmarkOrdinary loads ordinary documents, for comparison.
func BenchmarkOrdinary(b *testing.B) {
	for _, s := range []struct {
		name string
		data []byte
	}{
		{"pdf-6-pages", loadertest.PDF(b, 6)},
		{"docx", loadertest.DOCX(b, "Budget", "First.", "Second.")},
		{"xlsx", loadertest.XLSX(b)},
		{"png-400x100", loadertest.PNG(b, 400, 100)},
	} {
		b.Run(s.name, func(b *testing.B) { benchLoad(b, "a."+ext(s.name), s.data) })
	}
}

func ext(name string) string {
	for i := range name {
		if name[i] == '-' {
			return name[:i]
		}
	}
	return name
}

// benchLoad loads data b.N times and reports MiB-alloc/op and
// peak-heap-MiB.
func benchLoad(b *testing.B, name string, data []byte) {
	b.ReportAllocs()
	runtime.GC()
	var peak atomic.Uint64
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		t := time.NewTicker(time.Millisecond)
		defer t.Stop()
		for {
			metrics.Read(s)
			if v := s[0].Value.Uint64(); v > peak.Load() {
				peak.Store(v)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	b.ResetTimer()
	for range b.N {
		_, _ = loader.Load(context.Background(), name, data, loader.Options{})
	}
	b.StopTimer()
	runtime.ReadMemStats(&after)
	close(stop)
	<-done
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/(1<<20), "MiB-alloc/op")
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MiB")
}
