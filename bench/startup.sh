#!/usr/bin/env bash
# Start-up benchmark (issue 21, target 1; issue 40, part 2): `aidex --version`
# against a Go hello-world, run alternately N times each in one run so both
# see the same load; prints median, p10/p90 of each and the ratio of the
# medians, for aidex as `go build` makes it (with cgo when a C compiler is
# present: linked against the C library) and as a release builds it
# (CGO_ENABLED=0 -trimpath -ldflags "-s -w", scripts/release.sh: what the
# installers install); then the peak RSS of `aidex --version` (GNU time), the
# load average and the slowest package inits (GODEBUG=inittrace=1). The
# binaries are copied with cp before use: a file straight out of the linker
# maps other page-cache folios and reads higher.
#
#   bash bench/startup.sh            # N=200
#   N=500 OUT=/tmp/sb bash bench/startup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200}
OUT=${OUT:-/tmp/aidex-startup-bench}
mkdir -p "$OUT"
go build -o "$OUT/aidex.new" ./cmd/aidex
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$OUT/aidex-release.new" ./cmd/aidex
go build -o "$OUT/hello.new" ./bench/hello
go build -o "$OUT/startup" ./bench/startup
for b in aidex aidex-release hello; do cp "$OUT/$b.new" "$OUT/$b" && rm "$OUT/$b.new"; done
echo "date: $(date -u +%FT%TZ)  machine: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "go: $(go version)  binary: $(stat -c %s "$OUT/aidex") bytes"
echo "load before: $(uptime | sed 's/.*load average/load average/')"
"$OUT/startup" -n "$N" -a "$OUT/aidex --version" -b "$OUT/hello"
echo "release build ($(stat -c %s "$OUT/aidex-release") bytes):"
"$OUT/startup" -n "$N" -a "$OUT/aidex-release --version" -b "$OUT/hello"
echo "load after:  $(uptime | sed 's/.*load average/load average/')"
if [ -x /usr/bin/time ]; then
	for bin in "$OUT/aidex --version" "$OUT/aidex-release --version" "$OUT/hello"; do
		rss=$( { /usr/bin/time -v $bin >/dev/null; } 2>&1 | awk -F: '/Maximum resident/{gsub(/ /,"",$2); print $2}')
		echo "peak RSS $bin: ${rss} KiB"
	done
else
	echo "peak RSS: /usr/bin/time not installed (apt-get install -y time)"
fi
echo "package init total and top 10 (GODEBUG=inittrace=1, one run):"
GODEBUG=inittrace=1 "$OUT/aidex" --version 2>&1 >/dev/null |
	awk '/^init/{t+=$5; n++} END{printf "  %d packages, %.2f ms\n", n, t}'
GODEBUG=inittrace=1 "$OUT/aidex" --version 2>&1 >/dev/null | sort -k5 -n | tail -10 | sed 's/^/  /'
