#!/usr/bin/env bash
# bench/twentystep/run.sh - the same scripted 20-step task (read, grep, edit, test, fix) run
# by aidex, Codex CLI and Claude Code against one local scripted model, and the bytes each
# agent sends (issue 40, part 4).
#
# usage:
#   go build -o /work/tmp/tw-aidex ./cmd/aidex
#   AIDEX_BIN=/work/tmp/tw-aidex bash bench/twentystep/run.sh
#   AIDEX_BIN=... AGENTS="aidex codex" RUNS=1 NETNS=1 bash bench/twentystep/run.sh
#
# What is measured: every HTTP request body each agent sends to the model during the task
# (bytes, from the mock's log), per run: the first request, the first request offering
# tools (step 1), the total over the task, estimated tokens (bytes / 4, as server.py's
# est_tokens), the number of requests (those of the scripted loop, which offer tools, and
# side requests without tools: titles, quota checks). Wall time per run is printed too but
# is not a benchmark (one shared machine, no warm-up).
#
# The task: bench/twentystep/mock.py answers every request that offers tools with a call of
# the agent's own shell tool (aidex run_command, Codex's shell/exec tool, Claude Code's Bash;
# found in the request's tools by server.py's pick_tool) running the same command text,
# step n = the number of tool results already in the request; 19 commands (ls, cat, grep,
# sh test.sh as a deterministic stand-in for `go test ./...`, sed -i edits, git diff --stat),
# then the answer. Each run starts in a fresh copy of one fixed workspace (a small Go module
# in git with a failing test, made with fixed commit dates: the same commit id every time)
# at the same path, with a fresh HOME (at one path too), and must end with the task done (test.sh passes,
# the answer printed).
#
# Files: run.sh (this driver), mock.py (the scripted model), report.py (the tables).
# Requirements: python3; ../shared/bench/server.py (set SERVER_PY otherwise); the peers
# installed with npm under PEERS_DIR:
#   npm install --prefix /tmp/aidex-bench/peers @openai/codex @anthropic-ai/claude-code
# node on PATH for codex; git; util-linux `unshare` for NETNS=1.
#
# env knobs:
#   AIDEX_BIN   aidex binary (required when AGENTS has aidex)
#   AGENTS      default "aidex codex claude"; RUNS per agent (default 3), run one after another
#   PEERS_DIR   npm prefix of the peers (default /tmp/aidex-bench/peers)
#   OUT         output folder (default /tmp/aidex-bench/twentystep/<timestamp>): requests.jsonl,
#               dumps/ (every request body), runs/ (stdout, stderr), report.md, report.json
#   ROOT        default /tmp/aidex-bench/twentystep: the workspace is ROOT/ws and every run's
#               HOME is ROOT/home; Codex and Claude Code put these paths in their requests,
#               so compare bytes only between runs with the same ROOT
#   MOCK_PORT   default 18090; RUN_TIMEOUT seconds per run (default 300)
#   NETNS=1     run everything in a loopback-only network namespace (unshare -n)
set -u
if [ "${NETNS:-0}" = 1 ] && [ -z "${IN_NETNS:-}" ]; then
  # shellcheck disable=SC2016 # $0 and $@ are the inner bash's
  exec unshare -n env IN_NETNS=1 bash -c 'ip link set lo up && exec bash "$0" "$@"' "${BASH_SOURCE[0]}" "$@"
fi
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
AGENTS=${AGENTS:-"aidex codex claude"}
RUNS=${RUNS:-3}
PEERS_DIR=${PEERS_DIR:-/tmp/aidex-bench/peers}
ROOT=${ROOT:-/tmp/aidex-bench/twentystep}
OUT=${OUT:-$ROOT/$(date +%Y%m%d-%H%M%S)}
PORT=${MOCK_PORT:-18090}
RUN_TIMEOUT=${RUN_TIMEOUT:-300}
SERVER_PY=${SERVER_PY:-$REPO/../shared/bench/server.py}
WS=$ROOT/ws              # the same path for every run
BASE="http://127.0.0.1:$PORT"
PROMPT="Fix the failing test."
BIN="$PEERS_DIR/node_modules/.bin"
NODE_DIR=$(dirname "$(command -v node || echo /usr/bin/node)")
BASEENV=(PATH="$BIN:$NODE_DIR:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
         LANG=C.UTF-8 TERM=xterm-256color USER="$(id -un)" LOGNAME="$(id -un)" SHELL=/bin/bash)
[ -f "$SERVER_PY" ] || { echo "no server.py at $SERVER_PY (set SERVER_PY)" >&2; exit 1; }
mkdir -p "$OUT"/{runs,dumps}
: > "$OUT/runs.jsonl"

# ---------------------------------------------------------------- the workspace
make_ws() {
  rm -rf "$WS"; mkdir -p "$WS/cmd/calc"
  printf 'module example.com/calc\n\ngo 1.22\n' > "$WS/go.mod"
  # shellcheck disable=SC2016 # literal backquotes
  printf '# calc\n\nA tiny calculator package. Run `sh test.sh` to test it.\n' > "$WS/README.md"
  printf 'package calc\n\n// Add adds.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n' > "$WS/calc.go"
  printf 'package calc\n\nimport "testing"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf("Add(2, 3) = %%d, want 5", got)\n\t}\n}\n' > "$WS/calc_test.go"
  printf 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfmt.Println(1)\n}\n' > "$WS/cmd/calc/main.go"
  cat > "$WS/test.sh" <<'SH'
# Stand-in for `go test ./...` with the same output every run: passes once Add adds.
if grep -q 'return a + b' calc.go; then
  printf 'ok  \texample.com/calc\n?   \texample.com/calc/cmd/calc\t[no test files]\n'
else
  printf -- '--- FAIL: TestAdd\n    calc_test.go:7: Add(2, 3) does not return 5\nFAIL\nFAIL\texample.com/calc\nFAIL\n'
  exit 1
fi
SH
  ( cd "$WS" && git init -q -b main && git add -A &&
    GIT_AUTHOR_DATE=2026-12-01T00:00:00Z GIT_COMMITTER_DATE=2026-12-01T00:00:00Z \
    git -c user.name=bench -c user.email=bench@localhost commit -qm init ) >/dev/null 2>&1
}

# ---------------------------------------------------------------- the agents
agent_aidex() {
  mkdir -p "$H/.config/aidex"
  printf 'provider = "mock"\nmodel = "mock-model"\n\n[providers.mock]\ntype = "openai"\nbase_url = "%s/v1"\napi_key = "dummy"\n' \
    "$BASE" > "$H/.config/aidex/config.toml"
  CMD=(env -i "${BASEENV[@]}" HOME="$H" XDG_CONFIG_HOME="$H/.config" XDG_DATA_HOME="$H/.local/share"
       XDG_STATE_HOME="$H/.local/state" XDG_CACHE_HOME="$H/.cache"
       "${AIDEX_BIN:?set AIDEX_BIN}" -p "$PROMPT" --permission-mode auto-edit --allow 'run_command(*)')
}
version_aidex() { "$AIDEX_BIN" --version 2>&1 | head -1; }

agent_codex() {
  mkdir -p "$H/.codex"
  cat > "$H/.codex/config.toml" <<TOML
model = "mock-model"
model_provider = "mock"
check_for_update_on_startup = false

[model_providers.mock]
name = "mock"
base_url = "$BASE/v1"
env_key = "MOCK_API_KEY"
wire_api = "responses"

[analytics]
enabled = false

[feedback]
enabled = false
TOML
  CMD=(env -i "${BASEENV[@]}" HOME="$H" CODEX_HOME="$H/.codex" MOCK_API_KEY=dummy
       "$BIN/codex" exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox "$PROMPT")
}
version_codex() { env -i "${BASEENV[@]}" HOME="$ROOT" "$BIN/codex" --version 2>/dev/null | tail -1; }

agent_claude() {
  mkdir -p "$H"
  CMD=(env -i "${BASEENV[@]}" HOME="$H" ANTHROPIC_BASE_URL="$BASE" ANTHROPIC_API_KEY=dummy
       CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 DISABLE_TELEMETRY=1 DISABLE_AUTOUPDATER=1
       DISABLE_ERROR_REPORTING=1 "$BIN/claude" -p "$PROMPT" --allowedTools Bash)
}
version_claude() { env -i "${BASEENV[@]}" HOME="$ROOT" DISABLE_AUTOUPDATER=1 "$BIN/claude" --version 2>&1 | head -1; }

# ---------------------------------------------------------------- the mock
if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then
  echo "port $PORT is busy; set MOCK_PORT" >&2; exit 1
fi
SERVER_PY="$SERVER_PY" MOCK_PORT=$PORT MOCK_LOG="$OUT/requests.jsonl" MOCK_STATE="$OUT/state.json" \
  MOCK_DUMP_DIR="$OUT/dumps" python3 "$HERE/mock.py" > "$OUT/mock.log" 2>&1 &
MOCK_PID=$!
trap 'kill "$MOCK_PID" 2>/dev/null' EXIT
for _ in $(seq 50); do (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break; sleep 0.1; done

: > "$OUT/versions.txt"
echo "tree: $(git -C "$REPO" rev-parse --short HEAD 2>/dev/null)" >> "$OUT/versions.txt"
for a in $AGENTS; do echo "$a: $("version_$a")" >> "$OUT/versions.txt"; done
cat "$OUT/versions.txt"

for a in $AGENTS; do
  for i in $(seq 1 "$RUNS"); do
    tag="$a-$i"; H="$ROOT/home"; rm -rf "$H"   # one path for all: it is in some requests
    printf '{"scenario": "tool", "tag": "%s"}\n' "$tag" > "$OUT/state.json"
    make_ws
    "agent_$a"
    t0=$(date +%s.%N)
    ( cd "$WS" && timeout -k 5 "$RUN_TIMEOUT" "${CMD[@]}" < /dev/null > "$OUT/runs/$tag.out" 2> "$OUT/runs/$tag.err" )
    rc=$?
    t1=$(date +%s.%N)
    pass=0; sh -c "cd '$WS' && sh test.sh" >/dev/null 2>&1 && pass=1
    grep -q 'Fixed Add (it subtracted)' "$OUT/runs/$tag.out" && answered=1 || answered=0
    diff=$(cd "$WS" && git diff --stat | tail -1)
    printf '{"tag": "%s", "agent": "%s", "run": %d, "exit": %d, "wall_s": %.2f, "test_passes": %d, "answered": %d, "diff": "%s"}\n' \
      "$tag" "$a" "$i" "$rc" "$(echo "$t1 - $t0" | bc)" "$pass" "$answered" "$diff" >> "$OUT/runs.jsonl"
    tail -1 "$OUT/runs.jsonl"
  done
done

python3 "$HERE/report.py" "$OUT" | tee "$OUT/report.md"
echo "results: $OUT"
