#!/bin/sh
# Runs aidex's own eval suite with a model: bench/eval/run.sh MODEL [ATTEMPTS] [aidex eval run flags...]
set -eu
if [ $# -lt 1 ]; then
  echo "usage: $0 PROVIDER/MODEL [ATTEMPTS] [more aidex eval run flags]" >&2
  exit 2
fi
model=$1; shift
attempts=${1:-1}; [ $# -gt 0 ] && shift
exec aidex eval run "$(dirname "$0")/tasks" --model "$model" --attempts "$attempts" --parallel 2 "$@"
