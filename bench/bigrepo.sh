#!/usr/bin/env bash
# Big-repository benchmark (issue 21, target 4). Builds the synthetic tree of
# bench/bigrepo (100,000 files, 1.5 GB, 40% of both in a .gitignore'd
# node_modules; deterministic) in a temporary directory, warms the page cache,
# then times with bench/bigrepo/pair (commands in turn, median/min/max, ratio
# to the first), each tool called as a model calls it (`aidex tool NAME --args`):
#   1. grep on the Go backend (rg hidden from aidex's PATH) against `rg -n` with
#      the flags that give the same results, for a literal, the issue's regex
#      (one-byte literal) and a regex with no literal at all;
#   2. grep with rg present against a bare rg run with the very flags aidex
#      passes it (`rg --json ...`);
#   3. search_files '**/*.go', list_directory and analyze_project at the root
#      (with `rg --files` as the reference for the first), and the size of
#      their output;
#   4. the same tools in process (`go test -bench` on the tree).
# The tree is deleted at the end. Needs ripgrep (`apt-get install ripgrep`).
#
#   bash bench/bigrepo.sh                 # N=7 timed runs per command
#   N=11 OUT=/tmp/bigrepo bash bench/bigrepo.sh
#   FILES=20000 BYTES=300000000 bash bench/bigrepo.sh   # a smaller tree
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-7}
OUT=${OUT:-/tmp/aidex-bigrepo-bench}
FILES=${FILES:-100000}
BYTES=${BYTES:-1500000000}
command -v rg >/dev/null || { echo "bigrepo.sh: rg not found; install ripgrep (apt-get install ripgrep)" >&2; exit 2; }
mkdir -p "$OUT"
TREE=$(mktemp -d "${TMPDIR:-/tmp}/aidex-bigrepo.XXXXXX")
trap 'rm -rf "$TREE"' EXIT
avail=$(df -Pk "$TREE" | awk 'NR==2{print $4}')
need=$(( BYTES / 1024 * 13 / 10 ))
if [ "$avail" -lt "$need" ]; then
	echo "bigrepo.sh: $(df -h "$TREE" | awk 'NR==2{print $4}') free under $TREE, the tree needs ~$((need / 1024 / 1024)) GiB" >&2
	exit 2
fi
go build -o "$OUT/aidex" ./cmd/aidex
go build -o "$OUT/gen" ./bench/bigrepo/gen
go build -o "$OUT/pair" ./bench/bigrepo/pair
mkdir -p "$OUT/norg" # aidex's PATH when rg must not be found
echo "date: $(date -u +%FT%TZ)  machine: $(uname -srm), $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(free -g | awk '/Mem:/{print $2}') GiB"
echo "go: $(go version | cut -d' ' -f3)  rg: $(rg --version | head -1)  commit: $(git rev-parse --short HEAD)"
"$OUT/gen" -files "$FILES" -bytes "$BYTES" "$TREE/repo"
cd "$TREE/repo"
git init -q . # a repository, as users have: bare rg then honours .gitignore by itself
find . -type f -not -path './.git/*' -print0 | xargs -0 cat >/dev/null # warm page cache
load() { echo "load: $(uptime | sed 's/.*load average: //')"; }
A="$OUT/aidex"
tool() { printf "%s tool %s --args '%s' >/dev/null" "$A" "$1" "$2"; }
gotool() { printf "PATH=%s %s" "$OUT/norg" "$(tool "$@")"; }
RGSAME="rg -n --no-config --hidden --no-require-git -g '!.git'"
RGJSON="rg --json --no-config --hidden --no-ignore-dot --no-ignore-global --no-ignore-exclude --no-ignore-parent --no-require-git --max-filesize 33554432 -g '!.git'"

literal=ParseBigrepoManifest
regex='[A-Z][a-z]+[0-9]{3}x'
nolit='\b[A-Z][a-z]+[0-9]{3}[a-z]\b'
echo
echo "## 1. grep, Go backend (no rg on PATH) vs rg -n (same files searched)"
for p in "$literal" "$regex" "$nolit"; do
	json=$(printf '{"pattern":"%s"}' "${p//\\/\\\\}")
	echo "pattern: $p   matches: rg $(eval "$RGSAME -e '$p'" | wc -l), aidex $(eval "PATH=$OUT/norg $A tool grep --args '$json'" | grep -o '"matches": [0-9]*' | cut -d' ' -f2)"
	load
	"$OUT/pair" -n "$N" rg="$RGSAME -e '$p' >/dev/null" aidex-go="$(gotool grep "$json")"
done
echo
echo "## 2. grep with rg on PATH vs bare rg with aidex's flags (--json)"
for p in "$literal" "$regex"; do
	json=$(printf '{"pattern":"%s"}' "${p//\\/\\\\}")
	echo "pattern: $p"
	load
	"$OUT/pair" -n "$N" rg-json="$RGJSON -e '$p' -- . >/dev/null" aidex-rg="$(tool grep "$json")" rg-n="$RGSAME -e '$p' >/dev/null"
done
echo
echo "## 3. tree tools (process wall time, as \`aidex tool\`)"
load
"$OUT/pair" -n "$N" search_files="$(tool search_files '{"pattern":"**/*.go"}')" \
	rg-files="rg --files --no-require-git --hidden -g '!.git' -g '*.go' >/dev/null" \
	list_directory="$(tool list_directory '{}')" analyze_project="$(tool analyze_project '{}')" \
	aidex-version="$A --version >/dev/null"
for t in "search_files|{\"pattern\":\"**/*.go\"}" "list_directory|{}" "analyze_project|{}"; do
	"$A" tool "${t%%|*}" --args "${t#*|}" >"$OUT/${t%%|*}.json"
	echo "${t%%|*}: output $(python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(len(r["output"]), "chars, truncated:", r.get("metadata",{}).get("truncated",False))' "$OUT/${t%%|*}.json")"
done
load
echo
echo "## 4. in process (go test -bench, BIGREPO_TREE=the tree)"
cd - >/dev/null
BIGREPO_TREE="$TREE/repo" go test -run '^$' -bench 'TreeTools' -benchtime 5x -count 3 ./bench/bigrepo/ | grep -E '^Benchmark'
load
