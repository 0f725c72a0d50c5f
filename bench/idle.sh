#!/usr/bin/env bash
# idle.sh measures the CPU aidex uses while idle (issue 21, target 2):
#   - the TUI waiting for input in a tmux pane (110x32), and
#   - `aidex web` with a `curl -N` client attached to an open SSE stream: a
#     chat (POST /api/chat) waiting on a model that holds the request open
#     (bench/modelsrv -hang), the stream a page keeps open while it waits.
# Each run samples utime+stime from /proc/PID/stat over SECS seconds
# (after a WARMUP) and prints the CPU share of one core in percent; the
# summary is the median and the spread (min..max) of RUNS runs, with the load
# average. Needs: go, tmux, curl. No network, no key (the provider is
# bench/modelsrv on loopback).
#
#   bench/idle.sh                # RUNS=3 SECS=60 WARMUP=3
#   RUNS=5 SECS=30 bench/idle.sh
#   AIDEX=/path/to/aidex bench/idle.sh   # measure another build (its aidex-chat beside it)
set -euo pipefail

RUNS=${RUNS:-3}
SECS=${SECS:-60}
WARMUP=${WARMUP:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
sock="aidex-idle-$$"
trap '[ -n "${srvpid:-}" ] && kill "$srvpid" 2>/dev/null; tmux -L "$sock" kill-server 2>/dev/null || true; [ -n "${webpid:-}" ] && kill "$webpid" 2>/dev/null; [ -n "${curlpid:-}" ] && kill "$curlpid" 2>/dev/null; rm -rf "$tmp"' EXIT

bin=${AIDEX:-}
if [ -z "$bin" ]; then
	bin=$tmp/aidex
	(cd "$root" && go build -o "$tmp/" ./cmd/aidex ./cmd/aidex-chat)
fi
hz=$(getconf CLK_TCK)
(cd "$root" && go build -o "$tmp/modelsrv" ./bench/modelsrv)
"$tmp/modelsrv" -hang >"$tmp/srv.out" &
srvpid=$!
for i in $(seq 100); do [ -s "$tmp/srv.out" ] && break; sleep 0.1; done
model_url=$(head -1 "$tmp/srv.out")

# home prepares a fresh HOME with a provider on a closed port.
home() {
	local h=$1
	mkdir -p "$h/ws" "$h/config/aidex"
	printf 'provider = "fake"\nmodel = "m"\n\n[providers.fake]\ntype = "openai"\nbase_url = "%s"\napi_key = "k"\nmodels = ["m"]\n' "$model_url" >"$h/config/aidex/config.toml"
	echo "HOME=$h XDG_CONFIG_HOME=$h/config XDG_DATA_HOME=$h/data XDG_STATE_HOME=$h/state XDG_CACHE_HOME=$h/cache"
}

# ticks prints utime+stime of pid in clock ticks.
ticks() { awk '{print $14+$15}' "/proc/$1/stat"; }

# measure prints pid's CPU share (percent of one core) over SECS seconds.
measure() {
	local pid=$1 t0 t1 s0 s1
	sleep "$WARMUP"
	t0=$(ticks "$pid"); s0=$(date +%s.%N)
	sleep "$SECS"
	t1=$(ticks "$pid"); s1=$(date +%s.%N)
	awk -v d=$((t1 - t0)) -v hz="$hz" -v a="$s0" -v b="$s1" 'BEGIN{printf "%.3f\n", 100*d/hz/(b-a)}'
}

# pidof_child finds the aidex process started under the tmux pane.
aidex_pid() {
	local i
	for i in $(seq 50); do
		p=$(pgrep -n -f "^$bin -w $1" || true)
		[ -n "$p" ] && { echo "$p"; return; }
		sleep 0.1
	done
	echo "aidex did not start in tmux" >&2; exit 1
}

summary() { # name values...
	local name=$1; shift
	printf '%s\n' "$@" | sort -g | awk -v n="$name" -v load="$(cut -d' ' -f1-3 /proc/loadavg)" \
		'{v[NR]=$1} END{m=(NR%2)?v[(NR+1)/2]:(v[NR/2]+v[NR/2+1])/2; printf "%-10s median %.3f%% of a core (min %.3f, max %.3f, %d runs of '"$SECS"' s), load %s\n", n, m, v[1], v[NR], NR, load}'
}

tui=() web=()
for r in $(seq "$RUNS"); do
	# TUI in tmux.
	h=$tmp/tui$r; env=$(home "$h")
	tmux -L "$sock" -f /dev/null new-session -d -x 110 -y 32 -s t "env -i $env TERM=xterm-256color PATH=$PATH $bin -w $h/ws"
	pid=$(aidex_pid "$h/ws")
	tui+=("$(measure "$pid")")
	tmux -L "$sock" kill-server
	# aidex web with an SSE client.
	h=$tmp/web$r; env=$(home "$h")
	env -i $env PATH="$PATH" "$bin" -w "$h/ws" web --port 0 >"$tmp/web.out" 2>&1 &
	webpid=$!
	for i in $(seq 100); do grep -q 'token=' "$tmp/web.out" && break; sleep 0.1; done
	url=$(grep -o 'http://[^ ]*token=[^ ]*' "$tmp/web.out" | head -1)
	base=${url%%/?token=*}; base=${base%%\?token=*}; token=${url##*token=}
	curl -sN -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
		-d '{"message":"hello"}' "$base/api/chat" >"$tmp/sse.out" &
	curlpid=$!
	web+=("$(measure "$webpid")")
	grep -q '^event: ' "$tmp/sse.out" || { echo "the SSE stream did not open: $(cat "$tmp/sse.out")" >&2; exit 1; }
	kill "$curlpid" "$webpid"; wait "$webpid" 2>/dev/null || true; unset webpid curlpid
	echo "run $r: tui ${tui[-1]}% web ${web[-1]}% (load $(cut -d' ' -f1-3 /proc/loadavg))" >&2
done
summary "TUI idle" "${tui[@]}"
summary "web idle" "${web[@]}"
