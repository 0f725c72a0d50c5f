package web

import (
	"context"
	"io"
	"net/http"
	"net/http/httptrace"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

func heapAlloc() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// BenchmarkServerIdle reports the heap a started, idle server adds
// (config, catalog, session store, handler), in KiB.
func BenchmarkServerIdle(b *testing.B) {
	var total uint64
	for range b.N {
		before := heapAlloc()
		e := newEnv(b, nil, "")
		e.call(http.MethodGet, "/api/status", nil, nil)
		after := heapAlloc()
		if after > before {
			total += after - before
		}
		e.ts.Close()
		_ = e.srv.Close()
	}
	b.ReportMetric(float64(total)/float64(b.N)/1024, "idle-heap-KiB")
}

// BenchmarkServer20Chats holds 20 chats streaming at once (each on its own
// session, against a scripted model that keeps the stream open) and
// reports the server's heap growth and goroutines while they run, then
// closes the tabs.
func BenchmarkServer20Chats(b *testing.B) {
	const n = 20
	var heap, goroutines float64
	for range b.N {
		b.StopTimer()
		turns := make([]llmtest.Turn, n)
		for i := range turns {
			turns[i] = llmtest.Turn{Text: strings.Repeat("streamed text ", 40), Hang: true}
		}
		e := newEnv(b, llmtest.NewScript(b, turns...), "")
		ids := make([]string, n)
		for i := range ids {
			var out map[string]any
			e.call(http.MethodPost, "/api/history/clear", nil, &out)
			ids[i] = out["session_id"].(string)
		}
		before := heapAlloc()
		g0 := runtime.NumGoroutine()
		b.StartTimer()
		ctx, cancel := context.WithCancel(context.Background())
		var started, finished sync.WaitGroup
		started.Add(n)
		finished.Add(n)
		for _, id := range ids {
			go func() {
				defer finished.Done()
				resp, err := e.client.Do(e.req(http.MethodPost, "/api/chat", map[string]any{"message": "go", "session_id": id}).WithContext(ctx))
				if err != nil {
					b.Error(err)
					started.Done()
					return
				}
				defer resp.Body.Close()
				once := sync.Once{}
				readSSE(b, resp.Body, func(ev sseEvent) {
					if ev.Name == "text" {
						once.Do(started.Done)
					}
				})
				once.Do(started.Done)
			}()
		}
		started.Wait()
		b.StopTimer()
		during := heapAlloc()
		if during > before {
			heap += float64(during - before)
		}
		goroutines += float64(runtime.NumGoroutine() - g0)
		cancel()
		finished.Wait()
		e.ts.Close()
		_ = e.srv.Close()
		b.StartTimer()
	}
	b.ReportMetric(heap/float64(b.N)/1024, "heap-KiB-20-chats")
	b.ReportMetric(goroutines/float64(b.N), "goroutines-20-chats")
}

// BenchmarkPageTTFB measures the time to the first byte of the page over a
// kept-alive connection.
func BenchmarkPageTTFB(b *testing.B) {
	e := newEnv(b, nil, "")
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		var start, first time.Time
		trace := &httptrace.ClientTrace{
			WroteRequest:         func(httptrace.WroteRequestInfo) { start = time.Now() },
			GotFirstResponseByte: func() { first = time.Now() },
		}
		req := e.req(http.MethodGet, "/", nil)
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), trace))
		resp, err := e.client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		total += first.Sub(start)
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "ttfb-µs")
}
