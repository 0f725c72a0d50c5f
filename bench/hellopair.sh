#!/usr/bin/env bash
# Paired headless-hello benchmark (issue 40): two aidex binaries run
# alternately, run by run, N times each, each run in a fresh `git init`
# workspace with one data directory per binary (created by a warm-up run), against
# bench/modelsrv on loopback. Prints, per binary, the median and p10/p90 wall
# time and the median CPU (user + system of aidex and its git children, from
# wait4) and peak RSS, then the load average. The binaries are copied with cp
# first: a file straight out of `go build` starts slower and maps more pages
# than a copy of it (page-cache state), which would bias the pair.
#
#   BASE=/path/to/aidex-main bash bench/hellopair.sh     # against the tree's build
#   BASE=a NEW=b N=60 bash bench/hellopair.sh
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-40}
OUT=${OUT:-/tmp/aidex-hellopair}
: "${BASE:?set BASE to the aidex binary to compare with}"
mkdir -p "$OUT"
if [ -z "${NEW:-}" ]; then go build -o "$OUT/build" ./cmd/aidex; NEW="$OUT/build"; fi
cp "$BASE" "$OUT/base"; cp "$NEW" "$OUT/new"
go build -o "$OUT/modelsrv" ./bench/modelsrv
"$OUT/modelsrv" -rate 1000 -secs 0.01 > "$OUT/url" &
SRV=$!
trap 'kill $SRV 2>/dev/null' EXIT
for _ in $(seq 50); do [ -s "$OUT/url" ] && break; sleep 0.1; done
python3 - "$N" "$OUT" "$(cat "$OUT/url")" <<'PY'
import os, shutil, statistics, subprocess, sys, time
n, out, url = int(sys.argv[1]), sys.argv[2], sys.argv[3]
bins = {"base": out + "/base", "new": out + "/new"}
ws = out + "/ws"

def home(name):
    h = f"{out}/home-{name}"
    shutil.rmtree(h, ignore_errors=True)
    os.makedirs(h + "/.config/aidex")
    with open(h + "/.config/aidex/config.toml", "w") as f:
        f.write(f'provider = "mock"\nmodel = "mock-model"\n\n[providers.mock]\ntype = "openai"\n'
                f'base_url = "{url}"\napi_key = "dummy"\n')
    return h

def workspace():
    shutil.rmtree(ws, ignore_errors=True)
    os.makedirs(ws)
    with open(ws + "/main.go", "w") as f:
        f.write('package main\n\nfunc main() {}\n')
    subprocess.run("git init -q && git add -A && git -c user.name=b -c user.email=b@localhost commit -qm init",
                   shell=True, cwd=ws, check=True)

def run(b, h):
    env = {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", "HOME": h, "XDG_CONFIG_HOME": h + "/.config",
           "XDG_DATA_HOME": h + "/.local/share", "XDG_STATE_HOME": h + "/.local/state", "XDG_CACHE_HOME": h + "/.cache"}
    workspace()
    t = time.perf_counter()
    p = subprocess.Popen([b, "-p", "Say hello."], env=env, cwd=ws, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    if status != 0:
        sys.exit(f"{b} failed (status {status})")
    return wall, ru.ru_utime + ru.ru_stime, ru.ru_maxrss / 1024

homes = {k: home(k) for k in bins}
for k in bins:
    run(bins[k], homes[k])  # warm-up: creates the data directory
res = {k: [] for k in bins}
for i in range(n):
    for k in (list(bins) if i % 2 == 0 else list(bins)[::-1]):
        res[k].append(run(bins[k], homes[k]))
for k, rs in res.items():
    w = sorted(r[0] * 1000 for r in rs)
    print(f"{k:5s} wall median {statistics.median(w):6.1f} ms (p10 {w[len(w) // 10]:.1f}, p90 {w[len(w) * 9 // 10]:.1f})"
          f"  cpu median {statistics.median(r[1] * 1000 for r in rs):5.1f} ms"
          f"  peak RSS median {statistics.median(r[2] for r in rs):.1f} MiB  (n={len(rs)})")
print("load average: %.2f %.2f %.2f" % os.getloadavg())
PY
