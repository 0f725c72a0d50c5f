// Package pprofhook is the CPU and allocation profiler of benchmark builds
// (`go build -tags pprof`): imported for its side effect by aidex and
// aidex-chat, it does nothing in other builds. With -tags pprof,
// AIDEX_CPUPROFILE=FILE profiles the process (see pprof.go). Used by
// bench/stream-tui.sh PROFILE=1 and bench/longsession's
// AIDEX_BENCH_PROFILE.
package pprofhook
