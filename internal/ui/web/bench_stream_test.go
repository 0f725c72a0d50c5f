package web

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/zelvior/aidex/internal/llm/llmtest"
)

// stampedModel is a model server (OpenAI Chat Completions, streamed) that
// answers every request with chunks stamped "#UNIXNANO#" with their send
// time, one every `every`, for `dur`: the client can tell each event's
// delivery latency.
func stampedModel(tb testing.TB, every, dur time.Duration) *llmtest.Script {
	chunk := func(w http.ResponseWriter, delta map[string]any, finish any) {
		data, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "model": "m1",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}})
		_, _ = fmt.Fprintf(w, "data: %s\n\n", data)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		start := time.Now()
		for n := 1; time.Since(start) < dur; n++ {
			chunk(w, map[string]any{"content": fmt.Sprintf("#%d# ", time.Now().UnixNano())}, nil)
			if rc.Flush() != nil {
				return
			}
			time.Sleep(time.Until(start.Add(time.Duration(n) * every)))
		}
		chunk(w, map[string]any{}, "stop")
		_, _ = fmt.Fprint(w, "data: [DONE]\n\n")
		_ = rc.Flush()
	}))
	tb.Cleanup(srv.Close)
	return &llmtest.Script{Server: srv}
}

var stampRE = regexp.MustCompile(`#(\d+)#`)

// BenchmarkServer50ChatStreams runs 50 chats at once, each streaming a
// chunk every 20 ms for 2 s from a loopback model (2,500 events/s in
// all), and reports the latency from the model's send to the SSE client's
// read of each text event (p50, p99, max, in ms; p99-ms-after-first
// leaves out each stream's first event, which waits for the 50 runs'
// start-up) and the server's heap
// growth while they stream (KiB, sampled at the middle).
func BenchmarkServer50ChatStreams(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent)) // as `aidex web` runs
	var lat, steady []time.Duration
	var heap float64
	for range b.N {
		r := run50Streams(b, 2*time.Second, time.Second, func() uint64 { return heapAlloc() })
		lat, steady = append(lat, r.lat...), append(steady, r.steady...)
		if len(r.heap) > 0 && r.heap[0] > r.before {
			heap += float64(r.heap[0] - r.before)
		}
	}
	reportLatency(b, lat, steady)
	b.ReportMetric(heap/float64(b.N)/1024, "heap-KiB-50-streams")
	b.ReportMetric(float64(runtime.NumGoroutine()), "goroutines-after")
}

// BenchmarkServer50ChatStreamsLong is BenchmarkServer50ChatStreams with
// streams of AIDEX_BENCH_STREAM_SECS seconds (60 unless set): whether
// memory stays bounded over long streams. The live heap (as of the last
// collection, runtime/metrics /gc/heap/live:bytes: no forced collection
// that would add to the latencies) is sampled every 5 s; it reports the
// first and last samples and the largest, in MiB, beside the latencies.
// Each stream's answer text (~1.1 KiB a second) is kept by its run, so
// some growth is the answers themselves. AIDEX_BENCH_HEAPPROFILE=FILE
// writes a heap profile at each sample (the file holds the last one).
func BenchmarkServer50ChatStreamsLong(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(GCPercent))
	dur := 60 * time.Second
	if v, err := strconv.Atoi(os.Getenv("AIDEX_BENCH_STREAM_SECS")); err == nil && v > 0 {
		dur = time.Duration(v) * time.Second
	}
	sample := liveHeap
	if path := os.Getenv("AIDEX_BENCH_HEAPPROFILE"); path != "" {
		sample = func() uint64 {
			if f, err := os.Create(path); err == nil {
				_ = pprof.WriteHeapProfile(f)
				_ = f.Close()
			}
			return liveHeap()
		}
	}
	var lat, steady []time.Duration
	var first, last, peak float64
	for range b.N {
		r := run50Streams(b, dur, 5*time.Second, sample)
		lat, steady = append(lat, r.lat...), append(steady, r.steady...)
		if len(r.heap) == 0 {
			b.Fatal("no heap sample: the streams ended early")
		}
		first, last = first+mib(r.heap[0]), last+mib(r.heap[len(r.heap)-1])
		peak += mib(slices.Max(r.heap))
		b.Logf("live heap every 5 s (MiB): %v", mibs(r.heap))
	}
	reportLatency(b, lat, steady)
	b.ReportMetric(first/float64(b.N), "heap-MiB-first")
	b.ReportMetric(last/float64(b.N), "heap-MiB-last")
	b.ReportMetric(peak/float64(b.N), "heap-MiB-max")
}

// streamsRun is what run50Streams measured: the latency of every text
// event, those after each stream's first, and the heap before the streams
// and at each sample while they ran.
type streamsRun struct {
	lat, steady []time.Duration
	before      uint64
	heap        []uint64
}

// run50Streams starts a server on a stamped model, runs 50 chats at once
// on their own sessions, each streaming for dur, and samples heap() every
// `every` while they stream (the benchmark timer stopped meanwhile).
func run50Streams(b *testing.B, dur, every time.Duration, heap func() uint64) streamsRun {
	const n = 50
	b.StopTimer()
	e := newEnv(b, stampedModel(b, 20*time.Millisecond, dur), "")
	ids := make([]string, n)
	for i := range ids {
		var out map[string]any
		e.call(http.MethodPost, "/api/history/clear", nil, &out)
		ids[i] = out["session_id"].(string)
	}
	r := streamsRun{before: heap()}
	b.StartTimer()
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, id := range ids {
		wg.Go(func() {
			resp, err := e.client.Do(e.req(http.MethodPost, "/api/chat", map[string]any{"message": "go", "session_id": id}).WithContext(context.Background()))
			if err != nil {
				b.Error(err)
				return
			}
			defer resp.Body.Close()
			mine := readStamped(b, resp.Body)
			mu.Lock()
			r.lat = append(r.lat, mine...)
			if len(mine) > 1 {
				r.steady = append(r.steady, mine[1:]...)
			}
			mu.Unlock()
		})
	}
	for t := every; t < dur; t += every {
		time.Sleep(every)
		b.StopTimer()
		r.heap = append(r.heap, heap())
		b.StartTimer()
	}
	wg.Wait()
	b.StopTimer()
	e.ts.Close()
	_ = e.srv.Close()
	b.StartTimer()
	return r
}

// reportLatency reports the latencies of the text events.
func reportLatency(b *testing.B, lat, steady []time.Duration) {
	if len(lat) == 0 {
		b.Fatal("no text event carried a stamp: the stream format changed")
	}
	b.ReportMetric(quantileMS(lat, 0.5), "p50-ms")
	b.ReportMetric(quantileMS(lat, 0.99), "p99-ms")
	b.ReportMetric(quantileMS(lat, 1), "max-ms")
	b.ReportMetric(quantileMS(steady, 0.99), "p99-ms-after-first")
	b.ReportMetric(float64(len(lat))/float64(b.N), "events")
}

// liveHeap returns the live heap as of the last garbage collection, in
// bytes, without collecting.
func liveHeap() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

func mib(v uint64) float64 { return float64(v) / (1 << 20) }

// mibs formats heap samples in MiB with one decimal.
func mibs(l []uint64) []string {
	out := make([]string, len(l))
	for i, v := range l {
		out[i] = strconv.FormatFloat(mib(v), 'f', 1, 64)
	}
	return out
}

// BenchmarkLoopback50Streams is BenchmarkServer50ChatStreams' floor: the
// same 50 stamped model streams read straight from the model server (no
// aidex in between), so the two side by side show aidex's share of the
// latency on the same machine and load.
func BenchmarkLoopback50Streams(b *testing.B) {
	const n = 50
	var lat []time.Duration
	for range b.N {
		model := stampedModel(b, 20*time.Millisecond, 2*time.Second)
		var mu sync.Mutex
		var wg sync.WaitGroup
		for range n {
			wg.Go(func() {
				resp, err := model.Client().Post(model.URL+"/v1/chat/completions", "application/json", nil)
				if err != nil {
					b.Error(err)
					return
				}
				defer resp.Body.Close()
				var mine []time.Duration
				sc := bufio.NewScanner(resp.Body)
				for sc.Scan() {
					now := time.Now()
					for _, m := range stampRE.FindAllStringSubmatch(sc.Text(), -1) {
						ns, _ := strconv.ParseInt(m[1], 10, 64)
						mine = append(mine, now.Sub(time.Unix(0, ns)))
					}
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
		}
		wg.Wait()
	}
	b.ReportMetric(quantileMS(lat, 0.5), "p50-ms")
	b.ReportMetric(quantileMS(lat, 0.99), "p99-ms")
	b.ReportMetric(quantileMS(lat, 1), "max-ms")
}

// readStamped reads an aidex chat stream and returns the latency of each
// stamp its text events carry, in arrival order.
func readStamped(b *testing.B, r io.Reader) []time.Duration {
	var out []time.Duration
	eachSSE(b, r, func(ev sseEvent) {
		if ev.Name != "text" {
			return
		}
		now := time.Now()
		text, _ := ev.Data["text"].(string)
		for _, m := range stampRE.FindAllStringSubmatch(text, -1) {
			ns, _ := strconv.ParseInt(m[1], 10, 64)
			out = append(out, now.Sub(time.Unix(0, ns)))
		}
	})
	return out
}

// quantileMS returns the p quantile (0..1) of l in milliseconds (0 when
// l is empty); it sorts l.
func quantileMS(l []time.Duration, p float64) float64 {
	if len(l) == 0 {
		return 0
	}
	slices.Sort(l)
	return float64(l[int(p*float64(len(l)-1))]) / float64(time.Millisecond)
}
