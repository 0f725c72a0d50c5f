#!/usr/bin/env bash
# Start-up benchmark (issue 21, target 1): `aidex --version` against a Go
# hello-world, run alternately N times each in one run so both see the same
# load; prints median, p10/p90 of each and the ratio of the medians, then the
# peak RSS of `aidex --version` (GNU time), the load average and the slowest
# package inits (GODEBUG=inittrace=1).
#
#   bash bench/startup.sh            # N=200
#   N=500 OUT=/tmp/sb bash bench/startup.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-200}
OUT=${OUT:-/tmp/aidex-startup-bench}
mkdir -p "$OUT"
go build -o "$OUT/aidex" ./cmd/aidex
go build -o "$OUT/hello" ./bench/hello
go build -o "$OUT/startup" ./bench/startup
echo "date: $(date -u +%FT%TZ)  machine: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "go: $(go version)  binary: $(stat -c %s "$OUT/aidex") bytes"
echo "load before: $(uptime | sed 's/.*load average/load average/')"
"$OUT/startup" -n "$N" -a "$OUT/aidex --version" -b "$OUT/hello"
echo "load after:  $(uptime | sed 's/.*load average/load average/')"
if [ -x /usr/bin/time ]; then
	for bin in "$OUT/aidex --version" "$OUT/hello"; do
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
