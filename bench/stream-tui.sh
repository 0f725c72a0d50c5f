#!/usr/bin/env bash
# stream-tui.sh measures the CPU the TUI uses to show a fast stream (issue
# 21, target 5): bench/modelsrv streams ~RATE tokens/s of markdown for SECS
# seconds; aidex runs in a tmux pane (110x32) with a first message, and
# utime+stime from /proc/PID/stat over the stream (the SECS-2 seconds from the
# first word on screen on) gives the share of one core. Prints each run
# and the median and spread (min..max) of RUNS runs, with the load average.
# Needs: go, tmux. No network, no key.
#
#   bench/stream-tui.sh                 # RUNS=3 RATE=5000 SECS=20
#   AIDEX=/path/to/aidex bench/stream-tui.sh   # another build, its aidex-chat beside it
#   PROFILE=/tmp/tui.pprof RUNS=1 bench/stream-tui.sh   # a CPU profile of the
#       run (aidex built with -tags pprof); then: go tool pprof -top FILE
set -euo pipefail

RUNS=${RUNS:-3}
RATE=${RATE:-5000}
SECS=${SECS:-20}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
sock="aidex-stream-$$"
trap '[ -n "${srvpid:-}" ] && kill "$srvpid" 2>/dev/null; tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT

bin=${AIDEX:-}
if [ -z "$bin" ]; then
	bin=$tmp/aidex
	(cd "$root" && go build ${PROFILE:+-tags pprof} -o "$tmp/" ./cmd/aidex ./cmd/aidex-chat)
fi
(cd "$root" && go build -o "$tmp/modelsrv" ./bench/modelsrv)
"$tmp/modelsrv" -rate "$RATE" -secs "$SECS" >"$tmp/srv.out" &
srvpid=$!
for i in $(seq 100); do [ -s "$tmp/srv.out" ] && break; sleep 0.1; done
model_url=$(head -1 "$tmp/srv.out")
hz=$(getconf CLK_TCK)

ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }
screen() { tmux -L "$sock" capture-pane -p -t t; }

res=()
for r in $(seq "$RUNS"); do
	h=$tmp/h$r
	mkdir -p "$h/ws" "$h/config/aidex"
	printf 'provider = "fake"\nmodel = "m"\n\n[providers.fake]\ntype = "openai"\nbase_url = "%s"\napi_key = "k"\nmodels = ["m"]\n' "$model_url" >"$h/config/aidex/config.toml"
	env="HOME=$h XDG_CONFIG_HOME=$h/config XDG_DATA_HOME=$h/data XDG_STATE_HOME=$h/state XDG_CACHE_HOME=$h/cache"
	tmux -L "$sock" -f /dev/null new-session -d -x 110 -y 32 -s t "env -i $env ${PROFILE:+AIDEX_CPUPROFILE=$PROFILE AIDEX_CPUPROFILE_SECS=$((SECS + 5))} TERM=xterm-256color PATH=$PATH $bin -w $h/ws 'stream markdown'; sleep 600"
	pid=""
	for i in $(seq 100); do pid=$(pgrep -n -f "^$bin -w $h/ws" || true); [ -n "$pid" ] && break; sleep 0.1; done
	[ -n "$pid" ] || { echo "aidex did not start" >&2; exit 1; }
	# The stream starts when the first answer word is on screen.
	for i in $(seq 200); do screen | grep -q 'bold\|Section' && break; sleep 0.05; done
	t0=$(ticks "$pid"); s0=$(date +%s.%N)
	# Measure while it streams: the SECS-2 seconds after the first word.
	sleep $((SECS - 2))
	t1=$(ticks "$pid"); s1=$(date +%s.%N)
	v=$(awk -v d=$((t1 - t0)) -v hz="$hz" -v a="$s0" -v b="$s1" 'BEGIN{printf "%.1f", 100*d/hz/(b-a)}')
	wall=$(awk -v a="$s0" -v b="$s1" 'BEGIN{printf "%.1f", b-a}')
	echo "run $r: ${v}% of a core over ${wall} s (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
	res+=("$v")
	if [ -n "${PROFILE:-}" ]; then sleep 8; fi # the profile ends SECS+5 s after the start
	tmux -L "$sock" kill-server
done
printf '%s\n' "${res[@]}" | sort -g | awk -v load="$(cut -d' ' -f1-3 /proc/loadavg)" -v rate="$RATE" \
	'{v[NR]=$1} END{m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "TUI streaming %d tokens/s: median %.1f%% of a core (min %.1f, max %.1f, %d runs), load %s\n", rate, m, v[1], v[NR], NR, load}'
